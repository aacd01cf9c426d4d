//===- EvalLoweringOps.h - The eval dialect's lowered forms -----*- C++ -*-===//
//
// The ops only the GPU pipeline creates (dialects/Eval/IR/EvalLoweringOps.td,
// docs/lowering.md). EvalOps.h includes this header after its own ops (their
// traits name ProgramOp and EncoderOp), so including either gives all.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_EVALLOWERINGOPS_H
#define PROOFC_DIALECT_EVAL_EVALLOWERINGOPS_H

#include "proofc/Dialect/Eval/EvalOps.h"

namespace mlir::eval {

/// True for the lowered forms of eval.proof_loop (eval.device_loop,
/// eval.launch_loop): a program holds exactly one proof loop in any form.
bool isLoweredProofLoop(Operation *op);

/// The run-time symbols an extent factor may name (kBundleSymbols of
/// proofc/contract/BundleNames.h, the list the runtime reads).
bool isExtentSymbol(StringRef name);
/// A factor of a symbolic extent: a decimal literal or a run-time symbol.
bool isExtentFactor(StringRef factor);
} // namespace mlir::eval

#define GET_OP_CLASSES
#include "proofc/Dialect/Eval/EvalLoweringOps.h.inc"

#endif // PROOFC_DIALECT_EVAL_EVALLOWERINGOPS_H
