//===- Weights.cpp - The weights contract: tensors and metadata -----------===//
//
// The required tensors and their shapes follow from the program's encoder op
// list and the dataset's E and R (spec §4 table for the reference policy);
// Requirements below is their one definition, which expectedTensors (and so
// `proofc weights-spec` and checkWeights) and initWeights read. checkWeights
// reports the first tensor that is missing or misshapen, then any tensor the
// program does not use; initWeights draws a deterministic random set from
// SplitMix64(seed). weightsMetadata and checkWeightsMetadata are the other
// half of the contract: what a weights file says it was written for.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Evaluation.h"

#include "data/Fingerprints.h"
#include "data/MemoryBudget.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

namespace proofc {

namespace {

enum class Init { Embedding, Xavier, Zeros, Ones };

/// A tensor of the table and how initWeights fills it.
struct RequiredTensor {
  TensorSpec spec;
  Init init;
};

/// The tensors `program` reads, in encoder order (within an op: tables, then
/// weight, then bias). A name used by two ops appears once and must have the
/// same shape both times (weight tying).
class Requirements {
public:
  Requirements(const ProgramSpec &program, const Dataset &dataset)
      : program_(program) {
    const ShapeParams &shape = program.shape;
    int64_t width = 0; // feature width produced by the ops so far
    for (size_t i = 0; i < program.policy.encoder.size(); ++i) {
      const PolicyOp &op = program.policy.encoder[i];
      switch (op.kind) {
      case PolicyOpKind::AtomEmbed: {
        if (op.in <= 0 || op.in % 3 != 0 || op.out <= 0)
          opError(i, op,
                  "in = {} must be 3 x the embedding width and out = {} "
                  "positive",
                  op.in, op.out);
        int64_t e = op.in / 3;
        add(i, op, op.predTable, {dataset.numRelations() + 2, e},
            Init::Embedding);
        add(i, op, op.constTable, {dataset.numEntities(), e}, Init::Embedding);
        add(i, op, op.varTable, {2 * int64_t{shape.A}, e}, Init::Embedding);
        add(i, op, op.weight, {op.out, op.in}, Init::Xavier);
        add(i, op, op.bias, {op.out}, Init::Zeros);
        width = op.out;
        break;
      }
      case PolicyOpKind::Relu:
      case PolicyOpKind::SumAtoms:
        if (width == 0)
          opError(i, op, "comes before any atom_embed");
        break;
      case PolicyOpKind::Linear:
        if (op.in <= 0 || op.out <= 0)
          opError(i, op, "in = {} and out = {} must be positive", op.in,
                  op.out);
        checkWidth(i, op, op.in, width);
        add(i, op, op.weight, {op.out, op.in}, Init::Xavier);
        add(i, op, op.bias, {op.out}, Init::Zeros);
        width = op.out;
        break;
      case PolicyOpKind::LayerNorm: {
        if (op.in > 0 && op.out > 0 && op.in != op.out)
          opError(i, op, "in = {} and out = {} differ", op.in, op.out);
        int64_t w = op.out > 0 ? op.out : op.in;
        if (w <= 0)
          opError(i, op, "has no width (in = out = 0)");
        checkWidth(i, op, w, width);
        add(i, op, op.weight, {w}, Init::Ones);
        add(i, op, op.bias, {w}, Init::Zeros);
        break;
      }
      }
    }
  }

  const std::vector<RequiredTensor> &tensors() const { return tensors_; }

private:
  template <typename... Args>
  [[noreturn]] void opError(size_t index, const PolicyOp &op,
                            fmt::format_string<Args...> format,
                            Args &&...args) const {
    fail("program '{}': encoder op {} ({}): {}",
         escapeForMessage(program_.name), index, policyOpName(op.kind),
         fmt::format(format, std::forward<Args>(args)...));
  }

  void checkWidth(size_t index, const PolicyOp &op, int64_t in,
                  int64_t width) const {
    if (width == 0)
      opError(index, op, "comes before any atom_embed");
    if (in != width)
      opError(index, op, "expects width {}, but the previous ops yield {}", in,
              width);
  }

  void add(size_t index, const PolicyOp &op, const std::string &name,
           std::vector<int64_t> shape, Init init) {
    if (name.empty())
      opError(index, op, "has an empty tensor name");
    if (!names_.insert(name).second) {
      for (const RequiredTensor &t : tensors_)
        if (t.spec.name == name && t.spec.shape != shape)
          opError(index, op, "tensor '{}' is shared with shape [{}] and [{}]",
                  escapeForMessage(name), fmt::join(t.spec.shape, ", "),
                  fmt::join(shape, ", "));
      return;
    }
    TensorSpec spec;
    spec.name = name;
    spec.shape = std::move(shape);
    tensors_.push_back({std::move(spec), init});
  }

  const ProgramSpec &program_;
  std::vector<RequiredTensor> tensors_;
  std::set<std::string> names_; ///< of tensors_, for weight tying
};

/// Uniform in [0, 1) from the top 53 bits.
double uniform01(SplitMix64 &rng) {
  return static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
}

/// Standard normal by Box-Muller, the cosine branch only: every value draws
/// two uniforms (u1 for the radius, then u2 for the angle).
double standardNormal(SplitMix64 &rng) {
  double u1 = uniform01(rng), u2 = uniform01(rng);
  double radius = std::sqrt(-2.0 * std::log(1.0 - u1)); // 1 - u1 in (0, 1]
  return radius * std::cos(2.0 * M_PI * u2);
}

} // namespace

std::vector<TensorSpec> expectedTensors(const ProgramSpec &program,
                                        const Dataset &dataset) {
  const Requirements required(program, dataset);
  std::vector<TensorSpec> specs;
  for (const RequiredTensor &need : required.tensors())
    specs.push_back(need.spec);
  return specs;
}

void checkWeights(const ProgramSpec &program, const Dataset &dataset,
                  const TensorMap &weights, const std::string &path) {
  const std::vector<TensorSpec> expected = expectedTensors(program, dataset);
  std::set<std::string> used;
  for (const TensorSpec &need : expected) {
    used.insert(need.name);
    auto it = weights.find(need.name);
    if (it == weights.end())
      fail("{}: missing tensor '{}' (shape [{}])", path,
           escapeForMessage(need.name), fmt::join(need.shape, ", "));
    if (it->second.shape != need.shape)
      fail("{}: tensor '{}' has shape [{}], expected [{}]", path,
           escapeForMessage(need.name), fmt::join(it->second.shape, ", "),
           fmt::join(need.shape, ", "));
  }
  for (const auto &entry : weights)
    if (!used.count(entry.first))
      fail("{}: unexpected tensor '{}': program '{}' does not use it (weights "
           "for another program?)",
           path, escapeForMessage(entry.first), escapeForMessage(program.name));
}

TensorMap initWeights(const ProgramSpec &program, const Dataset &dataset,
                      uint64_t seed) {
  // Draw order: the required tensors in encoder order, each row-major.
  // Embedding tables: N(0, 1) * 0.5. Matrices [out, in]: Xavier-uniform,
  // (2u - 1) * sqrt(6 / (in + out)). Biases 0, LayerNorm weights 1; the
  // constant tensors draw nothing.
  Requirements required(program, dataset);
  // A wide program on a large dataset (d, E) asks for more than the machine
  // has: say so before drawing any of it (it used to be std::bad_alloc).
  uint64_t values = 0;
  for (const RequiredTensor &need : required.tensors()) {
    uint64_t n = 1;
    for (int64_t dim : need.spec.shape)
      n = saturatingBytes(n, static_cast<uint64_t>(std::max<int64_t>(dim, 0)));
    values = saturatingAdd(values, n);
  }
  checkMemoryFits(
      saturatingBytes(values, sizeof(float)),
      fmt::format("initializing the weights of program '{}' (E = {}, R = {})",
                  escapeForMessage(program.name), dataset.numEntities(),
                  dataset.numRelations()),
      fmt::format("{} values × 4 B", formatCount(values)));
  SplitMix64 rng(seed);
  TensorMap weights;
  for (const RequiredTensor &need : required.tensors()) {
    Tensor t;
    t.shape = need.spec.shape;
    t.data.resize(static_cast<size_t>(t.numel()));
    switch (need.init) {
    case Init::Embedding:
      for (float &v : t.data)
        v = static_cast<float>(0.5 * standardNormal(rng));
      break;
    case Init::Xavier: {
      double bound = std::sqrt(
          6.0 / static_cast<double>(need.spec.shape[0] + need.spec.shape[1]));
      for (float &v : t.data)
        v = static_cast<float>((2.0 * uniform01(rng) - 1.0) * bound);
      break;
    }
    case Init::Zeros:
      break;
    case Init::Ones:
      std::fill(t.data.begin(), t.data.end(), 1.0f);
      break;
    }
    weights.emplace(need.spec.name, std::move(t));
  }
  return weights;
}

SafetensorsMetadata weightsMetadata(const ProgramSpec &program,
                                    const Dataset &dataset) {
  return {{"format", "pt"}, // what PyTorch's safetensors writer records
          {kWeightsProgramKey, program.name},
          {kWeightsVocabularyKey, vocabularyFingerprint(dataset)}};
}

namespace {

/// "sha256:" and 64 lowercase hex digits, as vocabularyFingerprint writes.
bool isFingerprint(const std::string &text) {
  constexpr std::string_view prefix = "sha256:";
  return text.size() == prefix.size() + 64 &&
         text.compare(0, prefix.size(), prefix) == 0 &&
         text.find_first_not_of("0123456789abcdef", prefix.size()) ==
             std::string::npos;
}

} // namespace

void checkWeightsMetadata(const SafetensorsMetadata &metadata,
                          const ProgramSpec &program, const Dataset &dataset,
                          const std::string &path) {
  // "proofc.program" is not checked: weights fit every program that names
  // the same tensors with the same shapes (v10 compiled with another B, S
  // or D, a renamed copy), and checkWeights checks exactly that.
  auto it = metadata.find(kWeightsVocabularyKey);
  if (it == metadata.end())
    return; // written by another tool: nothing to check against
  const std::string &theirs = it->second;
  if (!isFingerprint(theirs))
    fail("{}: '__metadata__': '{}' is '{}', expected 'sha256:' and 64 "
         "lowercase hex digits",
         path, kWeightsVocabularyKey, escapeForMessage(theirs));
  const std::string ours = vocabularyFingerprint(dataset);
  if (theirs != ours)
    fail("{}: the weights were written for another dataset: the file's {} is "
         "{}, "
         "but dataset {} has {} (other entity or relation names: the "
         "embedding rows of program '{}' would belong to other names)",
         path, kWeightsVocabularyKey, theirs, dataset.dir, ours,
         escapeForMessage(program.name));
}

} // namespace proofc
