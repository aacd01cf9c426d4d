//===- HostPolicy.h - The policy encoder and action rule on CPU -*- C++ -*-===//
//
// Interprets ProgramSpec::policy.encoder in float32 (spec §4). The AtomEmbed
// linear over [pred_emb[p]; term(a); term(b)] is folded once at load into
// three projected tables, so an atom costs three row adds:
//   pre(p, a, b) = predProj[p] + arg0Proj[a] + arg1Proj[b]
//   predProj[p]  = bias + W[:, 0:e] · pred_emb[p]       (rows 0..R+1)
//   arg0Proj[t]  = W[:, e:2e] · term(t),  arg1Proj[t] = W[:, 2e:3e] · term(t)
// with constants and variables in separate tables, and no argument rows for
// TRUE/FALSE atoms (their term vectors are zero). The tables are computed in
// double and rounded once. A GPU backend can upload the same tables
// (foldedTables()). The kernels and their exact float order are described in
// runtime/src/host/PolicyKernels.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_HOSTPOLICY_H
#define PROOFC_RUNTIME_HOSTPOLICY_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Safetensors.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace proofc {

/// The AtomEmbed op after folding: tables of rows of `stride` floats (width
/// real values, then zeros; stride = width rounded up to 16).
struct FoldedAtomEmbed {
  int32_t width = 0;           ///< AtomEmbed out
  int32_t stride = 0;          ///< floats per row
  int32_t numVarRows = 0;      ///< row k-1 of the variable tables is Vk
  std::vector<float> predProj; ///< [R+2], bias included
  std::vector<float> arg0Const, arg1Const; ///< [E]
  std::vector<float> arg0Var, arg1Var;     ///< [numVarRows]
};

/// Spec §4 action rule over logits[0..k): the smallest i with
/// logit_i >= m - 1e-5 * max(1, |m|) (m the largest), and its log-softmax
/// (0 when k == 1), computed stably in double. When k > 1 and a logit is
/// not finite, logp is NaN (docs/errors.md: a non-finite logit fails the
/// run); with k == 1 no logit is used.
struct Action {
  int32_t index = 0;
  double logp = 0;
};
Action selectAction(const float *logits, int32_t k);

/// docs/sampling.md's sampled action over logits[0..k) for step `step` of
/// episode `episode` under `seed` (proofc/contract/Sampling.h's draw) and
/// its log softmax(logits / temperature), computed stably in double (0 when
/// k == 1, where nothing is drawn). When k > 1 and a logit is not finite,
/// logp is NaN and the index 0: the caller fails naming the step.
Action sampleAction(const float *logits, int32_t k, float temperature,
                    uint64_t seed, uint64_t episode, uint32_t step);

class HostPolicy {
public:
  /// Validates the op list and every tensor it names (errors name the
  /// tensor), then folds the AtomEmbed tables. `isa` picks the kernels
  /// ("avx512f", "avx2", "x86-64"; empty: the widest this CPU runs); all
  /// give bitwise-equal results.
  HostPolicy(const ProgramSpec &program, const TensorMap &weights,
             int32_t numEntities, int32_t numRelations,
             const std::string &isa = "");
  ~HostPolicy();
  HostPolicy(HostPolicy &&) noexcept;
  HostPolicy &operator=(HostPolicy &&) noexcept;

  /// The kernel sets this CPU can run, widest first.
  static std::vector<std::string> availableIsas();
  const char *isa() const;

  /// Width of enc(G).
  int32_t width() const;
  /// Floats of scratch encode()/encodeBatch() need (any batch size).
  size_t scratchSize() const;
  const FoldedAtomEmbed &foldedTables() const;

  /// enc of one state of A atoms (goals, then kPadPred padding) into
  /// out[width()]. Throws proofc::Error for an id outside the tables.
  void encode(const Atom *state, int32_t A, float *out, float *scratch) const;
  /// enc of k states [k][A] into out [k][width()]; each row is bitwise what
  /// encode() gives for that state alone.
  void encodeBatch(const Atom *states, int32_t k, int32_t A, float *out,
                   float *scratch) const;
  /// logits[i] = <parent, children[i]> * scoreScale, children [k][width()].
  void logits(const float *parent, const float *children, int32_t k,
              float *out) const;

  // Convenience forms for tests and tools (they allocate).
  std::vector<float> encode(const std::vector<Atom> &state) const;
  std::vector<float>
  logits(const std::vector<float> &parent,
         const std::vector<std::vector<float>> &children) const;

private:
  struct Impl;
  std::unique_ptr<const Impl> impl_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_HOSTPOLICY_H
