//===- ProofStep.h - Spec §5's step in an eval.proof_loop ------*- C++ -*-===//
//
// The one definition of "wired as spec §5 runs it": eval-fuse-step (which
// replaces the step by fused ops) and the export to the runtime's
// ProgramSpec (which runs the step as the spec does) both accept exactly the
// loops matchProofStep accepts, so a program the GPU pipeline compiles is one
// the host backend runs and vice versa.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_PROOFSTEP_H
#define PROOFC_DIALECT_EVAL_PROOFSTEP_H

#include "proofc/Dialect/Eval/EvalOps.h"

namespace mlir::eval {

/// The pieces of one step of spec §5 in an eval.proof_loop.
struct ProofStep {
  DeriveOp derive;          ///< Dl <- derive(G, c) on the loop's slots
  EncodeOp parent;          ///< enc(G) of the loop's slots
  EncodeOp children;        ///< enc(D_i) of derive's result, same encoder
  DotScoreOp score;         ///< the logits of the two encodings
  SelectOp select;          ///< action and log-probability over the logits
  TransitionOp transition;  ///< G <- Dl[i] on the loop's slots
  TerminalCheckOp terminal; ///< of the transition's result
  RecycleOp recycle;        ///< of the terminal check's result
  YieldOp yield;            ///< yields the recycled slots
};

/// Matches `loop`'s body against spec §5's step. The rules, each reported on
/// the op that breaks it (the first one only):
///  1. every piece is there (derive, dot_score, select, transition,
///     terminal_check, recycle; the loop's verifier counts them);
///  2. the parent embeddings are an eval.encode of the loop's slots;
///  3. the child embeddings are an eval.encode of derive's result;
///  4. parent and children use one encoder (spec §4's enc);
///  5. every other operand is the value the spec's step passes (derive and
///     transition read the loop's slots, select the logits and the derived
///     states, transition the action and log-probability, terminal_check the
///     transition, recycle the terminal check, the yield the recycle);
///  6. nothing else runs in the step: no other op, and no eval.encode besides
///     the parent's and the children's (it would be dropped by the fusion and
///     never run by the runtime).
/// `error(op)` starts each diagnostic (e.g. "cannot fuse the step: ").
FailureOr<ProofStep>
matchProofStep(ProofLoopOp loop,
               function_ref<InFlightDiagnostic(Operation *)> error);

} // namespace mlir::eval

#endif // PROOFC_DIALECT_EVAL_PROOFSTEP_H
