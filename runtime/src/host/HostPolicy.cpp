//===- HostPolicy.cpp - The policy encoder and action rule on CPU ---------===//
//
// Validates the encoder op list against the weights once and lowers it to a
// kernels::EncoderPlan (folded, padded arrays); PolicyKernels.cpp runs it.
//
//===----------------------------------------------------------------------===//
#include "host/HostPolicy.h"

#include "cuda/kernels/fold_columns_row.h"
#include "host/PolicyKernels.h"
#include "proofc/contract/Sampling.h"
#include "support/Fail.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace proofc {

using kernels::padded;

struct HostPolicy::Impl {
  kernels::EncoderPlan plan;
  kernels::KernelSet kernels;
  float scoreScale = 0;
};

namespace {

const Tensor &tensorOf(const TensorMap &weights, const std::string &name,
                       std::vector<int64_t> shape) {
  auto it = weights.find(name);
  if (it == weights.end())
    fail("policy weights: missing tensor '{}'", name);
  if (it->second.shape != shape)
    fail("policy weights: tensor '{}' has shape [{}], expected [{}]", name,
         fmt::join(it->second.shape, ", "), fmt::join(shape, ", "));
  return it->second;
}

/// Rows of `stride` floats: out[r][j] = sum_i W[j][col0 + i] * emb[r][i]
/// (+ bias[j]), accumulated in double and rounded once: the plan prologue's
/// fold_columns element (cuda/kernels/prologue_ops.h), so the GPU plan's
/// folded tables equal these bit for bit.
std::vector<float> project(const Tensor &emb, const Tensor &weight,
                           int64_t col0, const Tensor *bias, int32_t stride) {
  const int64_t rows = emb.shape[0], e = emb.shape[1];
  const int64_t width = weight.shape[0], in = weight.shape[1];
  std::vector<float> out(rows * stride, 0.f);
  for (int64_t r = 0; r < rows; ++r)
    prologue::foldColumnsRow(emb.data.data() + r * e, weight.data.data() + col0,
                             bias ? bias->data.data() : nullptr, width, in, e,
                             out.data() + r * stride);
  return out;
}

std::vector<float> paddedCopy(const std::vector<float> &v, int32_t stride) {
  std::vector<float> out(stride, 0.f);
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

void foldAtomEmbed(const PolicyOp &embed, const TensorMap &weights, int64_t A,
                   int32_t E, int32_t R, FoldedAtomEmbed &out) {
  auto predIt = weights.find(embed.predTable);
  if (predIt == weights.end())
    fail("policy weights: missing tensor '{}'", embed.predTable);
  if (predIt->second.shape.size() != 2)
    fail("policy weights: tensor '{}' has shape [{}], expected [{}, width]",
         embed.predTable, fmt::join(predIt->second.shape, ", "), R + 2);
  const int64_t e = predIt->second.shape[1];
  const Tensor &pred = tensorOf(weights, embed.predTable, {R + 2, e});
  const Tensor &cons = tensorOf(weights, embed.constTable, {E, e});
  const Tensor &vars = tensorOf(weights, embed.varTable, {2 * A, e});
  if (embed.in != 3 * e)
    fail("policy: op 0 (atom_embed) has in = {} but '{}' rows are {} wide (in "
         "must be 3 * "
         "{})",
         embed.in, embed.predTable, e, e);
  if (embed.out < 1)
    fail("policy: op 0 (atom_embed) has out = {}", embed.out);
  const Tensor &w = tensorOf(weights, embed.weight, {embed.out, embed.in});
  const Tensor &b = tensorOf(weights, embed.bias, {embed.out});
  out.width = embed.out;
  out.stride = padded(embed.out);
  out.numVarRows = static_cast<int32_t>(2 * A);
  out.predProj = project(pred, w, 0, &b, out.stride);
  out.arg0Const = project(cons, w, e, nullptr, out.stride);
  out.arg1Const = project(cons, w, 2 * e, nullptr, out.stride);
  out.arg0Var = project(vars, w, e, nullptr, out.stride);
  out.arg1Var = project(vars, w, 2 * e, nullptr, out.stride);
}

kernels::VectorOp lowerVectorOp(const PolicyOp &op, size_t index, int32_t width,
                                const TensorMap &weights) {
  kernels::VectorOp v;
  v.kind = op.kind;
  v.in = v.out = width;
  switch (op.kind) {
  case PolicyOpKind::Linear: {
    if (op.in != width)
      fail("policy: op {} (linear) has in = {} but its input is {} wide", index,
           op.in, width);
    if (op.out < 1)
      fail("policy: op {} (linear) has out = {}", index, op.out);
    const Tensor &w = tensorOf(weights, op.weight, {op.out, op.in});
    const Tensor &b = tensorOf(weights, op.bias, {op.out});
    v.out = op.out;
    const int32_t stride = padded(op.out);
    v.weightT.assign(size_t(op.in) * stride, 0.f);
    for (int32_t r = 0; r < op.out; ++r)
      for (int32_t c = 0; c < op.in; ++c)
        v.weightT[size_t(c) * stride + r] = w.data[size_t(r) * op.in + c];
    v.bias = paddedCopy(b.data, stride);
    break;
  }
  case PolicyOpKind::LayerNorm: {
    const int32_t stride = padded(width);
    v.gamma = paddedCopy(tensorOf(weights, op.weight, {width}).data, stride);
    v.bias = paddedCopy(tensorOf(weights, op.bias, {width}).data, stride);
    v.mask = paddedCopy(std::vector<float>(width, 1.f), stride);
    if (!(op.eps > 0.f))
      fail("policy: op {} (layer_norm) has eps {}", index, op.eps);
    v.eps = op.eps;
    break;
  }
  case PolicyOpKind::Relu:
    break;
  default:
    fail("policy: op {} ({}) is not supported after sum_atoms", index,
         policyOpName(op.kind));
  }
  return v;
}

} // namespace

Action selectAction(const float *logits, int32_t k) {
  if (k < 1)
    fail("policy: action over an empty derived list");
  Action action;
  if (k == 1)
    return action; // index 0, logp 0 (spec §4)
  float m = logits[0];
  for (int32_t i = 1; i < k; ++i)
    m = std::max(m, logits[i]);
  const double md = m;
  const double threshold = md - 1e-5 * std::max(1.0, std::fabs(md));
  while (static_cast<double>(logits[action.index]) < threshold)
    ++action.index;
  double sum = 0;
  bool finite = true;
  for (int32_t i = 0; i < k; ++i) {
    sum += std::exp(logits[i] - md);
    finite = finite && std::isfinite(logits[i]);
  }
  // A non-finite logit (a -inf alone would still give a finite value) makes
  // the step's log-probability NaN, so that the candidate's stays NaN and
  // the run fails naming it (checkFiniteOutcomes) instead of ranking it.
  action.logp = finite ? (logits[action.index] - md) - std::log(sum)
                       : std::numeric_limits<double>::quiet_NaN();
  return action;
}

Action sampleAction(const float *logits, int32_t k, float temperature,
                    uint64_t seed, uint64_t episode, uint32_t step) {
  if (k < 1)
    fail("policy: action over an empty derived list");
  Action action;
  if (k == 1)
    return action; // index 0, logp 0, nothing drawn (docs/sampling.md)
  const double tau = temperature;
  double m = -std::numeric_limits<double>::infinity();
  for (int32_t i = 0; i < k; ++i) {
    if (!std::isfinite(logits[i])) {
      action.logp = std::numeric_limits<double>::quiet_NaN();
      return action;
    }
    m = std::max(m, static_cast<double>(logits[i]) / tau);
  }
  action.index =
      sampling::sampleAction(logits, k, temperature, seed, episode, step);
  double sum = 0;
  for (int32_t i = 0; i < k; ++i)
    sum += std::exp(static_cast<double>(logits[i]) / tau - m);
  action.logp =
      (static_cast<double>(logits[action.index]) / tau - m) - std::log(sum);
  return action;
}

HostPolicy::HostPolicy(const ProgramSpec &program, const TensorMap &weights,
                       int32_t numEntities, int32_t numRelations,
                       const std::string &isa) {
  auto impl = std::make_unique<Impl>();
  kernels::EncoderPlan &plan = impl->plan;
  plan.numEntities = numEntities;
  plan.numRelations = numRelations;
  impl->scoreScale = program.policy.scoreScale;

  const std::vector<PolicyOp> &ops = program.policy.encoder;
  if (ops.empty() || ops[0].kind != PolicyOpKind::AtomEmbed)
    fail("policy: the encoder must start with atom_embed");
  foldAtomEmbed(ops[0], weights, program.shape.A, numEntities, numRelations,
                plan.atom);
  size_t i = 1;
  for (; i < ops.size() && ops[i].kind != PolicyOpKind::SumAtoms; ++i) {
    if (ops[i].kind != PolicyOpKind::Relu)
      fail("policy: op {} ({}) is not supported per atom (only relu is)", i,
           policyOpName(ops[i].kind));
    plan.atomRelu = true; // relu is idempotent: several in a row act as one
  }
  if (i == ops.size())
    fail("policy: the encoder has no sum_atoms op");
  int32_t width = plan.atom.width;
  plan.maxStride = padded(width);
  for (++i; i < ops.size(); ++i) {
    plan.ops.push_back(lowerVectorOp(ops[i], i, width, weights));
    width = plan.ops.back().out;
    plan.maxStride = std::max(plan.maxStride, padded(width));
  }
  plan.outWidth = width;

  const std::vector<kernels::KernelSet> sets = kernels::availableKernels();
  impl->kernels = sets.front();
  if (!isa.empty()) {
    auto it = std::find_if(sets.begin(), sets.end(),
                           [&](const auto &k) { return isa == k.isa; });
    if (it == sets.end())
      fail("policy: kernels for '{}' are not available on this CPU", isa);
    impl->kernels = *it;
  }
  impl_ = std::move(impl);
}

HostPolicy::~HostPolicy() = default;
HostPolicy::HostPolicy(HostPolicy &&) noexcept = default;
HostPolicy &HostPolicy::operator=(HostPolicy &&) noexcept = default;

std::vector<std::string> HostPolicy::availableIsas() {
  std::vector<std::string> out;
  for (const kernels::KernelSet &k : kernels::availableKernels())
    out.push_back(k.isa);
  return out;
}

const char *HostPolicy::isa() const { return impl_->kernels.isa; }
int32_t HostPolicy::width() const { return impl_->plan.outWidth; }
size_t HostPolicy::scratchSize() const { return impl_->plan.scratchSize(); }
const FoldedAtomEmbed &HostPolicy::foldedTables() const {
  return impl_->plan.atom;
}

void HostPolicy::encode(const Atom *state, int32_t A, float *out,
                        float *scratch) const {
  impl_->kernels.encode(impl_->plan, state, 1, A, out, scratch);
}

void HostPolicy::encodeBatch(const Atom *states, int32_t k, int32_t A,
                             float *out, float *scratch) const {
  impl_->kernels.encode(impl_->plan, states, k, A, out, scratch);
}

void HostPolicy::logits(const float *parent, const float *children, int32_t k,
                        float *out) const {
  impl_->kernels.logits(parent, children, k, impl_->plan.outWidth,
                        impl_->scoreScale, out);
}

std::vector<float> HostPolicy::encode(const std::vector<Atom> &state) const {
  std::vector<float> out(width()), scratch(scratchSize());
  encode(state.data(), static_cast<int32_t>(state.size()), out.data(),
         scratch.data());
  return out;
}

std::vector<float>
HostPolicy::logits(const std::vector<float> &parent,
                   const std::vector<std::vector<float>> &children) const {
  const size_t w = static_cast<size_t>(width());
  if (parent.size() != w)
    fail("policy: parent encoding has {} floats, expected {}", parent.size(),
         w);
  std::vector<float> out(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].size() != w)
      fail("policy: child encoding {} has {} floats, expected {}", i,
           children[i].size(), w);
    logits(parent.data(), children[i].data(), 1, &out[i]);
  }
  return out;
}

} // namespace proofc
