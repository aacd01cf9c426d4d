//===- EvalTypes.h - Types of the eval dialect ------------------*- C++ -*-===//
#ifndef PROOFC_DIALECT_EVAL_EVALTYPES_H
#define PROOFC_DIALECT_EVAL_EVALTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include "proofc/Dialect/Eval/EvalDialect.h"

#define GET_TYPEDEF_CLASSES
#include "proofc/Dialect/Eval/EvalOpsTypes.h.inc"

#endif // PROOFC_DIALECT_EVAL_EVALTYPES_H
