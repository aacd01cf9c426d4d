//===- FuseStep.cpp - eval-fuse-step --------------------------------------===//
//
// The spec's step is eight ops; on a GPU each would be a kernel with its
// intermediate tensors in memory (B·S·d child embeddings alone). Fused:
//   derive                                   -> eval.engine
//   encode ×2, dot_score, select             -> eval.score_select (one kernel:
//                                               embeddings stay on chip)
//   transition, terminal_check, recycle      -> eval.advance (one kernel, which
//                                               also reduces the loop's flag)
// inside an eval.device_loop whose start (eval.init_slots) and flag are
// explicit. Only the wiring spec §5 runs is accepted; anything else is an
// error on the op that differs.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::eval {
#define GEN_PASS_DEF_EVALFUSESTEPPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

namespace {

/// The pieces of one spec step, checked to be wired as spec §5 runs them.
struct StepPieces {
  DeriveOp derive;
  EncodeOp parent, children;
  DotScoreOp score;
  SelectOp select;
  TransitionOp transition;
  TerminalCheckOp terminal;
  RecycleOp recycle;
};

template <typename OpTy> OpTy getPiece(ProofLoopOp loop) {
  auto ops = loop.getBody().front().getOps<OpTy>();
  return ops.empty() ? OpTy() : *ops.begin();
}

InFlightDiagnostic fuseError(Operation *op) {
  return op->emitOpError() << "cannot fuse the step: ";
}

/// `user`'s operand `index` must be `expected` (described as `what`).
LogicalResult expectOperand(Operation *user, unsigned index, Value expected,
                            StringRef what) {
  if (user->getOperand(index) == expected)
    return success();
  return fuseError(user) << "operand #" << index << " must be " << what;
}

FailureOr<StepPieces> matchStep(ProofLoopOp loop) {
  StepPieces p;
  p.derive = getPiece<DeriveOp>(loop);
  p.score = getPiece<DotScoreOp>(loop);
  p.select = getPiece<SelectOp>(loop);
  p.transition = getPiece<TransitionOp>(loop);
  p.terminal = getPiece<TerminalCheckOp>(loop);
  p.recycle = getPiece<RecycleOp>(loop);
  if (!p.derive || !p.score || !p.select || !p.transition || !p.terminal ||
      !p.recycle)
    return fuseError(loop) << "the body lacks a piece of spec §5's step";
  Value slots = loop.getSlots();
  p.parent = p.score.getParent().getDefiningOp<EncodeOp>();
  p.children = p.score.getChildren().getDefiningOp<EncodeOp>();
  if (!p.parent || p.parent.getStates() != slots)
    return fuseError(p.score)
           << "the parent embeddings must be 'eval.encode' of the slots";
  if (!p.children || p.children.getStates() != p.derive.getDerived())
    return fuseError(p.score) << "the child embeddings must be 'eval.encode' "
                                 "of the 'eval.derive' result";
  if (p.parent.getCallee() != p.children.getCallee())
    return fuseError(p.children)
           << "parent and child states must use one encoder, got "
           << p.parent.getCalleeAttr() << " and " << p.children.getCalleeAttr();
  auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
  if (failed(expectOperand(p.derive, 1, slots, "the loop's slots")) ||
      failed(expectOperand(p.select, 0, p.score.getLogits(),
                           "the 'eval.dot_score' result")) ||
      failed(expectOperand(p.select, 1, p.derive.getDerived(),
                           "the 'eval.derive' result")) ||
      failed(expectOperand(p.transition, 0, slots, "the loop's slots")) ||
      failed(expectOperand(p.transition, 1, p.derive.getDerived(),
                           "the 'eval.derive' result")) ||
      failed(expectOperand(p.transition, 2, p.select.getAction(),
                           "the 'eval.select' action")) ||
      failed(expectOperand(p.transition, 3, p.select.getLogp(),
                           "the 'eval.select' log-probability")) ||
      failed(expectOperand(p.terminal, 0, p.transition.getResult(),
                           "the 'eval.transition' result")) ||
      failed(expectOperand(p.recycle, 0, p.terminal.getResult(),
                           "the 'eval.terminal_check' result")) ||
      failed(expectOperand(yield, 0, p.recycle.getResult(),
                           "the 'eval.recycle' result")))
    return failure();
  // The fused ops replace exactly these; anything else would be lost.
  for (Operation &op : loop.getBody().front()) {
    if (auto encode = dyn_cast<EncodeOp>(op)) {
      if (encode != p.parent && encode != p.children && !encode->use_empty())
        return fuseError(encode) << "its result is used outside the policy";
      continue;
    }
    if (!isa<DeriveOp, DotScoreOp, SelectOp, TransitionOp, TerminalCheckOp,
             RecycleOp, YieldOp>(op))
      return fuseError(&op)
             << "'" << op.getName() << "' is not part of spec §5's step";
  }
  return p;
}

struct EvalFuseStepPass
    : public eval::impl::EvalFuseStepPassBase<EvalFuseStepPass> {
  void runOnOperation() override {
    ProgramOp program = getOperation();
    ProofLoopOp loop = program.getProofLoop();
    if (!loop)
      return; // already fused
    FailureOr<StepPieces> pieces = matchStep(loop);
    if (failed(pieces))
      return signalPassFailure();
    StepPieces &p = *pieces;
    Value kb = loop.getKb(), pool = loop.getPool();
    Location loc = loop.getLoc();

    OpBuilder builder(loop);
    auto init = InitSlotsOp::create(builder, loc, loop.getSlots().getType(),
                                    builder.getI1Type(), pool);
    auto device = DeviceLoopOp::create(builder, loc, init.getActive(),
                                       ValueRange{init.getSlots()});
    Block *body = builder.createBlock(&device.getBody(), {},
                                      {loop.getSlots().getType()}, {loc});
    Value slots = body->getArgument(0);

    auto engine = EngineOp::create(builder, p.derive.getLoc(),
                                   p.derive.getType(), kb, slots, pool);
    Value derived = engine.getDerived();
    auto score = ScoreSelectOp::create(
        builder, p.select.getLoc(), p.select.getAction().getType(),
        p.select.getLogp().getType(), p.parent.getCalleeAttr(), slots, derived,
        p.score.getScaleAttr());
    auto advance = AdvanceOp::create(
        builder, p.recycle.getLoc(), p.recycle.getType(), builder.getI1Type(),
        slots, derived, score.getAction(), score.getLogp(), pool,
        p.terminal.getMaxDepthAttr());
    DeviceYieldOp::create(builder, loc, advance.getActive(),
                          ValueRange{advance.getResult()});
    loop.erase();
  }
};

} // namespace
