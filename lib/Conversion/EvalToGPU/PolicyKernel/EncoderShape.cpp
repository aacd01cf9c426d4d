//===- EncoderShape.cpp - the encoder as the policy kernel sees it --------===//
//
// describeEncoder: an eval.encoder's ops, checked against the one shape the
// policy kernel implements (EncoderShape.h), into an EncoderShape; every
// other encoder is one diagnostic naming the op that does not fit.
//
//===----------------------------------------------------------------------===//
#include "EncoderShape.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

FailureOr<EncoderShape>
mlir::eval::policy_kernel::describeEncoder(ScoreSelectOp op,
                                           EncoderOp encoder) {
  auto unsupported = [&](Operation *at, StringRef why) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "the GPU policy kernel cannot encode with "
                              << op.getEncoderAttr() << ": " << why;
    diag.attachNote(at->getLoc()) << "here";
    return diag;
  };
  Block &body = encoder.getBody().front();
  Value current = body.getArgument(0);
  EncoderShape shape;
  enum Stage { Atoms, AtomsRelu, Vector } stage = Atoms;
  for (Operation &inner : body) {
    if (auto ret = dyn_cast<ReturnOp>(inner)) {
      if (stage != Vector || ret.getValue() != current)
        return unsupported(&inner, "it must return the end of the op chain");
      shape.outWidth = cast<RankedTensorType>(current.getType()).getDimSize(0);
      return shape;
    }
    if (inner.getNumOperands() != 1 || inner.getOperand(0) != current ||
        inner.getNumResults() != 1)
      return unsupported(&inner, "the encoder must be one chain of ops");
    current = inner.getResult(0);
    int64_t width = cast<RankedTensorType>(current.getType()).getShape().back();
    shape.maxWidth = std::max(shape.maxWidth, width);
    if (auto embed = dyn_cast<FoldedAtomEmbedOp>(inner)) {
      if (shape.embed)
        return unsupported(&inner, "more than one atom embedding");
      shape.embed = embed;
      shape.atomWidth = width;
      continue;
    }
    if (!shape.embed)
      return unsupported(&inner, "it must start with eval.folded_atom_embed "
                                 "(run eval-fold-atom-embedding)");
    if (isa<ReluOp>(inner) && stage == Atoms) {
      if (cast<RankedTensorType>(current.getType()).getRank() == 2) {
        stage = AtomsRelu;
        shape.atomRelu = true;
        continue;
      }
    }
    if (isa<SumAtomsOp>(inner) && stage != Vector) {
      stage = Vector;
      continue;
    }
    if (stage != Vector)
      return unsupported(&inner, "only relu may come between the atom "
                                 "embedding and eval.sum_atoms");
    VectorLayer layer;
    if (isa<ReluOp>(inner)) {
      layer.kind = VectorLayer::Relu;
      layer.in = layer.out = width;
    } else if (auto linear = dyn_cast<LinearOp>(inner)) {
      layer.kind = VectorLayer::Linear;
      layer.in = linear.getInput().getType().getDimSize(0);
      layer.out = width;
      layer.weight = linear.getWeight().str();
      layer.bias = linear.getBias().str();
    } else if (auto norm = dyn_cast<LayerNormOp>(inner)) {
      layer.kind = VectorLayer::LayerNorm;
      layer.in = layer.out = width;
      layer.weight = norm.getWeight().str();
      layer.bias = norm.getBias().str();
      layer.eps = norm.getEpsAttr().getValueAsDouble();
    } else {
      return unsupported(&inner, "not an encoder op the kernel implements");
    }
    if (shape.layers.size() == kMaxKernelLayers)
      return unsupported(&inner, "more than " +
                                     std::to_string(kMaxKernelLayers) +
                                     " layers (relu, linear, layer_norm) "
                                     "after eval.sum_atoms, the limit of the "
                                     "GPU compiler (docs/errors.md)");
    shape.layers.push_back(layer);
  }
  return unsupported(encoder, "it has no eval.return");
}
