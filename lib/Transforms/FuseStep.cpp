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
// explicit. Only the wiring spec §5 runs is accepted (matchProofStep, the
// check the export to the runtime makes too); anything else is an error on
// the op that differs.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/ProofStep.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::eval {
#define GEN_PASS_DEF_EVALFUSESTEPPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

namespace {

struct EvalFuseStepPass
    : public eval::impl::EvalFuseStepPassBase<EvalFuseStepPass> {
  void runOnOperation() override {
    ProgramOp program = getOperation();
    ProofLoopOp loop = program.getProofLoop();
    if (!loop)
      return; // already fused
    // The fused ops and the buffers after them are made for one B.
    if (auto slots = dyn_cast_or_null<SlotsType>(
            loop.getSlots() ? loop.getSlots().getType() : Type());
        slots && ShapedType::isDynamic(slots.getSlots())) {
      loop.emitOpError() << "cannot fuse the step: its types write B as '?' "
                            "(run eval-specialize-shapes first)";
      return signalPassFailure();
    }
    FailureOr<ProofStep> step = matchProofStep(loop, [](Operation *op) {
      return op->emitOpError() << "cannot fuse the step: ";
    });
    if (failed(step))
      return signalPassFailure();
    ProofStep &p = *step;
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
        builder.getF32FloatAttr(p.score.getEffectiveScale()),
        p.select.getModesAttr());
    auto advance = AdvanceOp::create(
        builder, p.recycle.getLoc(), p.recycle.getType(), builder.getI1Type(),
        slots, derived, score.getAction(), score.getLogp(), pool,
        p.terminal.getMaxDepthAttr() ? p.terminal.getMaxDepthAttr()
                                     : program.getDAttr());
    DeviceYieldOp::create(builder, loc, advance.getActive(),
                          ValueRange{advance.getResult()});
    loop.erase();
  }
};

} // namespace
