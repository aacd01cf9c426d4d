//===- ProofLoopOps.cpp - eval.proof_loop and the ops of one step ---------===//
//
// One step over B slots: derive -> encode -> dot_score -> select ->
// transition -> terminal_check -> recycle -> yield. Each op checks that the
// B, S, A and widths of its operand and result types agree with each other;
// ProgramOp checks them against the program's parameters.
//
//===----------------------------------------------------------------------===//
#include "VerifyUtils.h"

#include "mlir/IR/SymbolTable.h"

#include <cmath>

using namespace mlir;
using namespace mlir::eval;
using verifyutil::getSlotTensor;

//===----------------------------------------------------------------------===//
// ProofLoopOp, YieldOp
//===----------------------------------------------------------------------===//

Value ProofLoopOp::getSlots() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 ||
      !isa<SlotsType>(body.getArgument(0).getType()))
    return {};
  return body.getArgument(0);
}

/// Counts the direct children of `body` of type OpTy and reports when the
/// count is zero, or above one when `exactlyOne`.
template <typename OpTy>
static LogicalResult requirePiece(ProofLoopOp loop, bool exactlyOne) {
  int64_t count = llvm::range_size(loop.getBody().front().getOps<OpTy>());
  StringRef name = OpTy::getOperationName();
  if (count == 0)
    return loop.emitOpError() << "body has no '" << name << "'";
  if (exactlyOne && count > 1)
    return loop.emitOpError() << "body has " << count << " '" << name
                              << "' ops; expected exactly one";
  return success();
}

// Runs before the body's ops are verified, so a missing piece is reported
// first rather than through its consequences.
LogicalResult ProofLoopOp::verify() {
  Block &body = getBody().front();
  if (!getSlots())
    return emitOpError() << "body must have one '!eval.slots<BxA>' argument, "
                            "got "
                         << body.getNumArguments() << " argument(s)";
  if (failed(requirePiece<DeriveOp>(*this, true)) ||
      failed(requirePiece<EncodeOp>(*this, false)) ||
      failed(requirePiece<DotScoreOp>(*this, true)) ||
      failed(requirePiece<SelectOp>(*this, true)) ||
      failed(requirePiece<TransitionOp>(*this, true)) ||
      failed(requirePiece<TerminalCheckOp>(*this, true)) ||
      failed(requirePiece<RecycleOp>(*this, true)))
    return failure();
  return success();
}

LogicalResult YieldOp::verify() {
  Value slots = cast<ProofLoopOp>((*this)->getParentOp()).getSlots();
  if (!slots || slots.getType() == getSlots().getType())
    return success();
  return emitOpError() << "yields " << getSlots().getType()
                       << ", but the loop's slots are " << slots.getType();
}

//===----------------------------------------------------------------------===//
// DeriveOp, EncodeOp
//===----------------------------------------------------------------------===//

LogicalResult DeriveOp::verify() {
  SlotsType slots = getSlots().getType();
  DerivedType derived = getDerived().getType();
  if (derived.getSlots() == slots.getSlots() &&
      derived.getAtoms() == slots.getAtoms())
    return success();
  return emitOpError() << "result " << derived << " must have the B and A of "
                       << slots;
}

LogicalResult EncodeOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (!program)
    return success(); // HasParent reports the misplaced op.
  auto encoder = dyn_cast_or_null<EncoderOp>(
      SymbolTable::lookupSymbolIn(program, getCalleeAttr()));
  if (!encoder)
    return emitOpError() << getCalleeAttr()
                         << " does not name an 'eval.encoder' of the program";
  StateType state = encoder.getStateType();
  RankedTensorType embedding = encoder.getEmbeddingType();
  if (!state || !embedding)
    return success(); // The encoder reports its own signature.

  // Slots give one embedding per slot, derived sets one per derived state.
  SmallVector<int64_t, 3> shape;
  int64_t atoms;
  if (auto slots = dyn_cast<SlotsType>(getStates().getType())) {
    shape = {slots.getSlots()};
    atoms = slots.getAtoms();
  } else {
    auto derived = cast<DerivedType>(getStates().getType());
    shape = {derived.getSlots(), derived.getStates()};
    atoms = derived.getAtoms();
  }
  if (atoms != state.getAtoms())
    return emitOpError() << "states " << getStates().getType()
                         << " have A = " << atoms << ", but " << getCalleeAttr()
                         << " encodes " << state;
  shape.push_back(embedding.getDimSize(0));
  auto expected = RankedTensorType::get(shape, embedding.getElementType());
  if (getType() == expected)
    return success();
  return emitOpError() << "result " << getType() << " does not match "
                       << getCalleeAttr() << " (width "
                       << embedding.getDimSize(0) << ") on "
                       << getStates().getType() << ": expected " << expected;
}

//===----------------------------------------------------------------------===//
// DotScoreOp, SelectOp
//===----------------------------------------------------------------------===//

LogicalResult DotScoreOp::verify() {
  RankedTensorType parent = getSlotTensor(getParent().getType(), 2);
  RankedTensorType children = getSlotTensor(getChildren().getType(), 3);
  if (!parent || !children || parent.getDimSize(0) != children.getDimSize(0))
    return emitOpError() << "expects parent tensor<Bxd> and children "
                            "tensor<BxSxd>, got "
                         << getParent().getType() << " and "
                         << getChildren().getType();
  if (parent.getDimSize(1) != children.getDimSize(2))
    return emitOpError() << "parent width " << parent.getDimSize(1)
                         << " differs from child width "
                         << children.getDimSize(2);
  auto expected =
      RankedTensorType::get({children.getDimSize(0), children.getDimSize(1)},
                            parent.getElementType());
  if (getType() != expected)
    return emitOpError() << "result " << getType() << " must be " << expected;
  if (!getScaleAttr())
    return success(); // 1/sqrt(d), getEffectiveScale
  double scale = getScaleAttr().getValueAsDouble();
  if (!(scale > 0) || !std::isfinite(scale))
    return emitOpError()
           << "attribute 'scale' must be positive and finite, got " << scale;
  return success();
}

float DotScoreOp::getDefaultScale() {
  auto parent = cast<RankedTensorType>(getParent().getType());
  return static_cast<float>(
      1.0 /
      std::sqrt(static_cast<double>(parent.getDimSize(parent.getRank() - 1))));
}

float DotScoreOp::getEffectiveScale() {
  return getScaleAttr() ? getScaleAttr().getValue().convertToFloat()
                        : getDefaultScale();
}

LogicalResult SelectOp::verify() {
  DerivedType derived = getDerived().getType();
  auto logits = RankedTensorType::get({derived.getSlots(), derived.getStates()},
                                      Float32Type::get(getContext()));
  if (getLogits().getType() != logits)
    return emitOpError() << "logits " << getLogits().getType() << " must be "
                         << logits << " for " << derived;
  auto action = RankedTensorType::get({derived.getSlots()},
                                      IntegerType::get(getContext(), 32));
  auto logp = RankedTensorType::get({derived.getSlots()},
                                    Float32Type::get(getContext()));
  if (getAction().getType() != action || getLogp().getType() != logp)
    return emitOpError() << "results must be " << action << " and " << logp
                         << ", got " << getAction().getType() << " and "
                         << getLogp().getType();
  return verifyutil::verifySelectModes(*this, getModesAttr());
}

bool SelectOp::supportsSampled() {
  return verifyutil::selectModesIncludeSampled(getModesAttr());
}

//===----------------------------------------------------------------------===//
// TransitionOp, TerminalCheckOp, RecycleOp
//===----------------------------------------------------------------------===//

LogicalResult TransitionOp::verify() {
  SlotsType slots = getSlots().getType();
  DerivedType derived = getDerived().getType();
  if (derived.getSlots() != slots.getSlots() ||
      derived.getAtoms() != slots.getAtoms())
    return emitOpError() << "derived " << derived
                         << " must have the B and A of " << slots;
  auto action = RankedTensorType::get({slots.getSlots()},
                                      IntegerType::get(getContext(), 32));
  auto logp =
      RankedTensorType::get({slots.getSlots()}, Float32Type::get(getContext()));
  if (getAction().getType() != action || getLogp().getType() != logp)
    return emitOpError() << "action and logp must be " << action << " and "
                         << logp << ", got " << getAction().getType() << " and "
                         << getLogp().getType();
  if (getResult().getType() != slots)
    return emitOpError() << "result " << getResult().getType() << " must be "
                         << slots;
  return success();
}

LogicalResult TerminalCheckOp::verify() {
  if (!getMaxDepthAttr())
    return success(); // the program's D
  int64_t maxDepth = getMaxDepthAttr().getInt();
  if (maxDepth <= 0)
    return emitOpError() << "attribute 'max_depth' must be positive, got "
                         << maxDepth;
  std::optional<verifyutil::ProgramShape> shape =
      verifyutil::getEnclosingProgramShape(*this);
  if (shape && maxDepth != shape->D)
    return emitOpError() << "max_depth = " << maxDepth
                         << " differs from the program's D = " << shape->D;
  return success();
}

LogicalResult RecycleOp::verify() {
  if (getResult().getType() == getSlots().getType())
    return success();
  return emitOpError() << "result " << getResult().getType() << " must be "
                       << getSlots().getType();
}
