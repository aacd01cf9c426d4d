//===- EvalDialect.cpp - The eval dialect ---------------------------------===//
//
// Registers the dialect's types and ops; the definitions live in EvalTypes.cpp
// and EvalOps.cpp (generated code) and in the per-group *Ops.cpp files.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/EvalOps.h"

using namespace mlir;
using namespace mlir::eval;

#include "proofc/Dialect/Eval/EvalOpsDialect.cpp.inc"

void EvalDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "proofc/Dialect/Eval/EvalOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "proofc/Dialect/Eval/EvalLoweringOps.cpp.inc"
      >();
}
