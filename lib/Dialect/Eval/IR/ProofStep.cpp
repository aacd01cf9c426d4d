//===- ProofStep.cpp - Spec §5's step, matched in an eval.proof_loop ------===//
//
// The wiring check that eval-fuse-step and exportProgramSpec share; the rules
// are listed in ProofStep.h and each has a lit test
// (test/Transforms/eval-fuse-step.mlir, test/proofc/export-errors.test).
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/ProofStep.h"

using namespace mlir;
using namespace mlir::eval;

namespace {
template <typename OpTy> OpTy getPiece(ProofLoopOp loop) {
  auto ops = loop.getBody().front().getOps<OpTy>();
  return ops.empty() ? OpTy() : *ops.begin();
}
} // namespace

FailureOr<ProofStep> mlir::eval::matchProofStep(
    ProofLoopOp loop, function_ref<InFlightDiagnostic(Operation *)> error) {
  ProofStep p;
  p.derive = getPiece<DeriveOp>(loop);
  p.score = getPiece<DotScoreOp>(loop);
  p.select = getPiece<SelectOp>(loop);
  p.transition = getPiece<TransitionOp>(loop);
  p.terminal = getPiece<TerminalCheckOp>(loop);
  p.recycle = getPiece<RecycleOp>(loop);
  Value slots = loop.getSlots();
  // Rule 1 (the loop's verifier already reports a missing piece).
  if (!slots || !p.derive || !p.score || !p.select || !p.transition ||
      !p.terminal || !p.recycle)
    return error(loop) << "the body lacks a piece of spec §5's step";
  p.yield = cast<YieldOp>(loop.getBody().front().getTerminator());

  // Rules 2 to 4: the policy's two encodings.
  p.parent = p.score.getParent().getDefiningOp<EncodeOp>();
  p.children = p.score.getChildren().getDefiningOp<EncodeOp>();
  if (!p.parent || p.parent.getStates() != slots)
    return error(p.score)
           << "the parent embeddings must be 'eval.encode' of the loop's slots";
  if (!p.children || p.children.getStates() != p.derive.getDerived())
    return error(p.score) << "the child embeddings must be 'eval.encode' of "
                             "the 'eval.derive' result";
  if (p.parent.getCallee() != p.children.getCallee())
    return error(p.children)
           << "parent and child states must use one encoder, got "
           << p.parent.getCalleeAttr() << " and " << p.children.getCalleeAttr();

  // Rule 5: the data flow of the step.
  auto expectOperand = [&](Operation *user, unsigned index, Value expected,
                           StringRef what) -> LogicalResult {
    if (user->getOperand(index) == expected)
      return success();
    return error(user) << "operand #" << index << " must be " << what;
  };
  Value derived = p.derive.getDerived();
  if (failed(expectOperand(p.derive, 1, slots, "the loop's slots")) ||
      failed(expectOperand(p.select, 0, p.score.getLogits(),
                           "the 'eval.dot_score' result")) ||
      failed(expectOperand(p.select, 1, derived, "the 'eval.derive' result")) ||
      failed(expectOperand(p.transition, 0, slots, "the loop's slots")) ||
      failed(expectOperand(p.transition, 1, derived,
                           "the 'eval.derive' result")) ||
      failed(expectOperand(p.transition, 2, p.select.getAction(),
                           "the 'eval.select' action")) ||
      failed(expectOperand(p.transition, 3, p.select.getLogp(),
                           "the 'eval.select' log-probability")) ||
      failed(expectOperand(p.terminal, 0, p.transition.getResult(),
                           "the 'eval.transition' result")) ||
      failed(expectOperand(p.recycle, 0, p.terminal.getResult(),
                           "the 'eval.terminal_check' result")) ||
      failed(expectOperand(p.yield, 0, p.recycle.getResult(),
                           "the 'eval.recycle' result")))
    return failure();

  // Rule 6: nothing else.
  for (Operation &op : loop.getBody().front()) {
    if (auto encode = dyn_cast<EncodeOp>(op)) {
      if (encode != p.parent && encode != p.children)
        return error(encode) << "an 'eval.encode' other than the parent's and "
                                "the children's is not part of spec §5's step";
      continue;
    }
    if (!isa<DeriveOp, DotScoreOp, SelectOp, TransitionOp, TerminalCheckOp,
             RecycleOp, YieldOp>(op))
      return error(&op) << "'" << op.getName()
                        << "' is not part of spec §5's step";
  }
  return p;
}
