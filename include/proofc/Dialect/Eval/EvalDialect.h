//===- EvalDialect.h - The eval dialect -------------------------*- C++ -*-===//
//
// Include EvalOps.h to get the dialect, its types and its ops together.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_EVALDIALECT_H
#define PROOFC_DIALECT_EVAL_EVALDIALECT_H

#include "mlir/IR/Dialect.h"

#include "proofc/Dialect/Eval/EvalOpsDialect.h.inc"

#endif // PROOFC_DIALECT_EVAL_EVALDIALECT_H
