//===- VerifyUtils.cpp - Helpers shared by the eval op verifiers ----------===//
#include "VerifyUtils.h"

using namespace mlir;
using namespace mlir::eval;

std::optional<verifyutil::ProgramShape>
verifyutil::getProgramShape(ProgramOp program) {
  int64_t values[4];
  IntegerAttr attrs[4] = {program.getAAttr(), program.getSAttr(),
                          program.getDAttr(), program.getBAttr()};
  for (int i = 0; i < 4; ++i) {
    if (!attrs[i] || attrs[i].getInt() <= 0)
      return std::nullopt;
    values[i] = attrs[i].getInt();
  }
  return ProgramShape{values[0], values[1], values[2], values[3]};
}

std::optional<verifyutil::ProgramShape>
verifyutil::getEnclosingProgramShape(Operation *op) {
  auto program = op->getParentOfType<ProgramOp>();
  if (!program)
    return std::nullopt;
  return getProgramShape(program);
}

RankedTensorType verifyutil::getStaticTensor(Type type, int64_t rank) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != rank || !tensor.hasStaticShape())
    return {};
  for (int64_t size : tensor.getShape())
    if (size <= 0)
      return {};
  return tensor;
}

RankedTensorType verifyutil::getSlotTensor(Type type, int64_t rank) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != rank)
    return {};
  for (auto [i, size] : llvm::enumerate(tensor.getShape()))
    if (size <= 0 && !(i == 0 && ShapedType::isDynamic(size)))
      return {};
  return tensor;
}

LogicalResult verifyutil::verifyWeightName(Operation *op, StringRef attrName,
                                           StringAttr value) {
  if (value && !value.getValue().empty())
    return success();
  return op->emitOpError() << "attribute '" << attrName
                           << "' must name a weight tensor, got an empty name";
}

LogicalResult verifyutil::verifySelectModes(Operation *op, ArrayAttr modes) {
  if (!modes)
    return success();
  if (modes.empty())
    return op->emitOpError()
           << "attribute 'modes' must list at least \"greedy\"";
  bool greedy = false, sampled = false;
  for (Attribute a : modes) {
    StringRef mode = cast<StringAttr>(a).getValue();
    if (mode != "greedy" && mode != "sampled")
      return op->emitOpError() << "attribute 'modes' has unknown mode \""
                               << mode << "\" (greedy, sampled)";
    bool &seen = mode == "greedy" ? greedy : sampled;
    if (seen)
      return op->emitOpError()
             << "attribute 'modes' lists \"" << mode << "\" twice";
    seen = true;
  }
  if (!greedy)
    return op->emitOpError()
           << "attribute 'modes' must contain \"greedy\": evaluation always "
              "selects greedily (spec §4)";
  return success();
}

bool verifyutil::selectModesIncludeSampled(ArrayAttr modes) {
  if (!modes)
    return true;
  return llvm::any_of(modes, [](Attribute a) {
    return cast<StringAttr>(a).getValue() == "sampled";
  });
}
