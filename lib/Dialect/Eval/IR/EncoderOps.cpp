//===- EncoderOps.cpp - eval.encoder and the ops of its body --------------===//
//
// The encoder maps one !eval.state<A> to tensor<dxf32>. Per-atom values are
// tensor<Axw> (one row per atom position), the state vector is tensor<w>;
// these verifiers keep every op at its level with static, positive sizes.
//
//===----------------------------------------------------------------------===//
#include "VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::eval;
using verifyutil::getStaticTensor;

//===----------------------------------------------------------------------===//
// EncoderOp
//===----------------------------------------------------------------------===//

ParseResult EncoderOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> inputs,
                      ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(inputs, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void EncoderOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

StateType EncoderOp::getStateType() {
  ArrayRef<Type> inputs = getArgumentTypes();
  return inputs.size() == 1 ? dyn_cast<StateType>(inputs.front()) : StateType();
}

RankedTensorType EncoderOp::getEmbeddingType() {
  ArrayRef<Type> results = getResultTypes();
  if (results.size() != 1)
    return {};
  RankedTensorType type = getStaticTensor(results.front(), 1);
  return type && type.getElementType().isF32() ? type : RankedTensorType();
}

LogicalResult EncoderOp::verify() {
  if (!getStateType())
    return emitOpError() << "must take exactly one '!eval.state<A>' argument, "
                            "got "
                         << getFunctionType();
  if (!getEmbeddingType())
    return emitOpError() << "must return one rank-1 static f32 tensor (the "
                            "embedding), got "
                         << getFunctionType();
  if (getBody().empty())
    return emitOpError("must have a body");
  return success();
}

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto encoder = cast<EncoderOp>((*this)->getParentOp());
  RankedTensorType expected = encoder.getEmbeddingType();
  if (!expected || getValue().getType() == expected)
    return success();
  return emitOpError() << "returns " << getValue().getType()
                       << ", but the encoder returns " << expected;
}

//===----------------------------------------------------------------------===//
// AtomEmbedOp
//===----------------------------------------------------------------------===//

int64_t AtomEmbedOp::getEmbeddingWidth() {
  if (std::optional<uint64_t> dim = getEmbedDim())
    return static_cast<int64_t>(*dim);
  return getType().getDimSize(1);
}

LogicalResult AtomEmbedOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyutil::verifyWeightName(op, "preds", getPredsAttr())) ||
      failed(verifyutil::verifyWeightName(op, "consts", getConstsAttr())) ||
      failed(verifyutil::verifyWeightName(op, "vars", getVarsAttr())) ||
      failed(verifyutil::verifyWeightName(op, "weight", getWeightAttr())) ||
      failed(verifyutil::verifyWeightName(op, "bias", getBiasAttr())))
    return failure();
  int64_t atoms = getState().getType().getAtoms();
  RankedTensorType result = getStaticTensor(getType(), 2);
  if (!result || result.getDimSize(0) != atoms)
    return emitOpError() << "result must be a static tensor<" << atoms
                         << "xWxf32> (one row per atom of "
                         << getState().getType() << "), got " << getType();
  if (IntegerAttr dim = getEmbedDimAttr(); dim && dim.getInt() <= 0)
    return emitOpError() << "attribute 'embed_dim' must be positive, got "
                         << dim.getInt();
  return success();
}

//===----------------------------------------------------------------------===//
// ReluOp, SumAtomsOp, LinearOp, LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult ReluOp::verify() {
  Type type = getInput().getType();
  if (getStaticTensor(type, 1) || getStaticTensor(type, 2))
    return success();
  return emitOpError() << "expects a static tensor<w> or tensor<Axw>, got "
                       << type;
}

LogicalResult SumAtomsOp::verify() {
  RankedTensorType input = getStaticTensor(getInput().getType(), 2);
  RankedTensorType result = getStaticTensor(getType(), 1);
  if (input && result && input.getDimSize(1) == result.getDimSize(0))
    return success();
  return emitOpError() << "expects tensor<Axw> -> tensor<w>, got "
                       << getInput().getType() << " -> " << getType();
}

LogicalResult LinearOp::verify() {
  if (failed(verifyutil::verifyWeightName(*this, "weight", getWeightAttr())) ||
      failed(verifyutil::verifyWeightName(*this, "bias", getBiasAttr())))
    return failure();
  if (getStaticTensor(getInput().getType(), 1) && getStaticTensor(getType(), 1))
    return success();
  return emitOpError() << "expects tensor<in> -> tensor<out> (rank 1, static), "
                          "got "
                       << getInput().getType() << " -> " << getType();
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyutil::verifyWeightName(*this, "weight", getWeightAttr())) ||
      failed(verifyutil::verifyWeightName(*this, "bias", getBiasAttr())))
    return failure();
  if (!getStaticTensor(getInput().getType(), 1))
    return emitOpError() << "expects a static rank-1 tensor<w>, got "
                         << getInput().getType();
  double eps = getEpsAttr().getValueAsDouble();
  if (!(eps > 0) || !std::isfinite(eps))
    return emitOpError() << "attribute 'eps' must be positive and finite, got "
                         << eps;
  return success();
}
