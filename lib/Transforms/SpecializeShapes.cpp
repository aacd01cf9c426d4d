//===- SpecializeShapes.cpp - eval-specialize-shapes ----------------------===//
//
// A program writes B once (its attribute) and `?` in the types of its proof
// loop; the kernels bake B in and the plan passes it at run time, so both
// must come from that one value. This pass writes it into the types (every
// eval slots/derived type of the program, and the leading size of every
// tensor in the proof loop, which the verifiers tie to the slots' B), after
// setting it from `slots` when given. Every type of the loop is rewritten,
// `?` or not, so `slots` also re-targets a program that spells B out.
// The values the spec derives are written where the program leaves them
// out: dot_score's scale (1/sqrt(d), spec §4), terminal_check's max_depth
// (the program's D).
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <climits>

namespace mlir::eval {
#define GEN_PASS_DEF_EVALSPECIALIZESHAPESPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

namespace {

/// `type` with its B set to `B`: the slots of an eval type, the leading
/// size of a tensor (in the proof loop, where every tensor is per slot).
Type withSlots(Type type, int64_t B, bool inLoop) {
  if (auto slots = dyn_cast<SlotsType>(type))
    return SlotsType::get(type.getContext(), B, slots.getAtoms());
  if (auto derived = dyn_cast<DerivedType>(type))
    return DerivedType::get(type.getContext(), B, derived.getStates(),
                            derived.getAtoms());
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!inLoop || !tensor || tensor.getRank() == 0)
    return type;
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] = B;
  return tensor.clone(shape);
}

struct EvalSpecializeShapesPass
    : public eval::impl::EvalSpecializeShapesPassBase<
          EvalSpecializeShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    if (slots < 0 || slots > INT32_MAX) {
      program.emitError() << "eval-specialize-shapes: slots must be in [1, "
                          << INT32_MAX << "] (0: the program's B), got "
                          << static_cast<int64_t>(slots);
      return signalPassFailure();
    }
    ProofLoopOp loop = program.getProofLoop();
    if (!loop) {
      if (slots == 0 || slots == program.getBAttr().getInt())
        return; // fused already: its types are static
      program.emitOpError()
          << "eval-specialize-shapes: slots=" << static_cast<int64_t>(slots)
          << " needs the spec-level program (an 'eval.proof_loop'; run it "
             "before eval-fuse-step)";
      return signalPassFailure();
    }
    OpBuilder builder(program.getContext());
    if (slots > 0)
      program.setBAttr(builder.getI64IntegerAttr(slots));
    int64_t B = program.getBAttr().getInt();

    // Every value outside the encoders (which see one state, no B): the
    // results of ops and the arguments of blocks.
    program.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<EncoderOp>(op))
        return WalkResult::skip();
      bool inLoop = op->getParentOfType<ProofLoopOp>() != nullptr;
      for (Value result : op->getResults())
        result.setType(withSlots(result.getType(), B, inLoop));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(withSlots(arg.getType(), B, isa<ProofLoopOp>(op)));
      return WalkResult::advance();
    });

    // The derived values the program left out.
    loop.walk([&](DotScoreOp score) {
      if (!score.getScaleAttr())
        score.setScaleAttr(builder.getF32FloatAttr(score.getDefaultScale()));
    });
    loop.walk([&](TerminalCheckOp terminal) {
      if (!terminal.getMaxDepthAttr())
        terminal.setMaxDepthAttr(program.getDAttr());
    });
  }
};

} // namespace
