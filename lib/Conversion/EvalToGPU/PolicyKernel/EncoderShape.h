//===- EncoderShape.h - the encoder as the policy kernel sees it -*- C++
//-*-===//
//
// The policy kernel implements one shape of encoder: eval.folded_atom_embed,
// [relu], eval.sum_atoms, then a chain of relu / linear / layer_norm on the
// vector. describeEncoder reads an eval.encoder into that shape, or says
// (as a diagnostic on the eval.score_select) why the kernel cannot encode
// with it. The generator (KernelGenerator.h) and the entry point
// (PolicyKernel.cpp) read only this description, never the encoder's ops.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_ENCODERSHAPE_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_ENCODERSHAPE_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include <string>

namespace mlir::eval::policy_kernel {

struct VectorLayer {
  enum Kind { Relu, Linear, LayerNorm } kind;
  int64_t in = 0, out = 0;
  std::string weight, bias; ///< Linear: W and b; LayerNorm: gamma and beta
  double eps = 0;
};

/// Most vector layers (relu, linear, layer_norm after sum_atoms) the kernel
/// is generated for. Each layer is unrolled into the one kernel function,
/// and LLVM's NVPTX back end (straight-line strength reduction, GVN, loop
/// strength reduction) takes time quadratic in that function's length:
/// `proofc compile` of 50 / 100 / 200 linear+relu layers took 4.8 / 13.5 /
/// 45 s, 1,000 over a minute. 128 layers (64 linear+relu pairs, 20 times the
/// reference policy's 6) compile in a few seconds.
constexpr size_t kMaxKernelLayers = 128;

struct EncoderShape {
  FoldedAtomEmbedOp embed;
  bool atomRelu = false;
  int64_t atomWidth = 0;
  SmallVector<VectorLayer> layers;
  int64_t outWidth = 0, maxWidth = 0;
};

/// The encoder must be: folded_atom_embed, [relu], sum_atoms, then relu /
/// linear / layer_norm on the vector, each op consuming the previous result.
FailureOr<EncoderShape> describeEncoder(ScoreSelectOp op, EncoderOp encoder);

} // namespace mlir::eval::policy_kernel

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_ENCODERSHAPE_H
