//===- EvalOps.cpp - Generated op definitions of the eval dialect ---------===//
//
// Only the ODS-generated code; hand-written verifiers, parsers and printers
// are in ProgramOps.cpp, EncoderOps.cpp and ProofLoopOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/EvalOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_CLASSES
#include "proofc/Dialect/Eval/EvalOps.cpp.inc"
