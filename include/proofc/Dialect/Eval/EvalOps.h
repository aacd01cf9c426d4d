//===- EvalOps.h - Operations of the eval dialect ---------------*- C++ -*-===//
#ifndef PROOFC_DIALECT_EVAL_EVALOPS_H
#define PROOFC_DIALECT_EVAL_EVALOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "proofc/Dialect/Eval/EvalDialect.h"
#include "proofc/Dialect/Eval/EvalTypes.h"

#define GET_OP_CLASSES
#include "proofc/Dialect/Eval/EvalOps.h.inc"

#include "proofc/Dialect/Eval/EvalLoweringOps.h"

#endif // PROOFC_DIALECT_EVAL_EVALOPS_H
