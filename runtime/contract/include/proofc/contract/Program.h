//===- Program.h - The runtime's view of a compiled eval program -*- C++
//-*-===//
//
// The compiler/runtime contract (no MLIR here). `proofc` lowers an `eval`
// program to a ProgramSpec: the static shape parameters (spec §1.2) and the
// policy encoder as a flat op list that the host backend interprets and the
// GPU kernels implement. A Bundle adds the generated kernels and the GPU plan.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_CONTRACT_PROGRAM_H
#define PROOFC_CONTRACT_PROGRAM_H

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

/// Spec §1.2. B affects speed only.
struct ShapeParams {
  int32_t A = 6;   ///< max atoms per proof state
  int32_t S = 120; ///< max derived states per step
  int32_t D = 20;  ///< max depth
  int32_t B = 256; ///< slots in parallel
  int32_t d = 64;  ///< policy width
  int32_t L = 2;   ///< MLP layers (informational; the encoder lists them)
};

/// One op of the state encoder. The encoder maps a proof state to a vector:
/// it starts per atom (AtomEmbed gives an [A, width] block masked to the
/// state's real atoms), Relu works elementwise at either level, SumAtoms sums
/// the real atoms into one vector, Linear/LayerNorm work on that vector.
enum class PolicyOpKind { AtomEmbed, Relu, SumAtoms, Linear, LayerNorm };

struct PolicyOp {
  PolicyOpKind kind;
  // AtomEmbed: linear over [pred_emb[p]; term(a); term(b)]
  std::string predTable, constTable, varTable;
  // AtomEmbed / Linear: PyTorch nn.Linear weight [out, in] and bias [out].
  // LayerNorm: elementwise weight and bias [width].
  std::string weight, bias;
  int32_t in = 0, out = 0; ///< widths (for AtomEmbed: in = 3 * embedding dim)
  float eps = 1e-5f;       ///< LayerNorm
};

/// How eval.select chooses an action (docs/sampling.md): Greedy is spec
/// §4's rule (evaluation, always), Sampled the Gumbel-max draw from
/// softmax(logits / temperature) keyed by (seed, episode, step) that
/// rollouts use. The mode is an argument of a run, not of the program: one
/// bundle runs both.
enum class SelectMode : uint8_t { Greedy = 0, Sampled = 1 };

/// The mode's name in eval.select's `modes`, the bundle and errors.
inline const char *selectModeName(SelectMode mode) {
  return mode == SelectMode::Sampled ? "sampled" : "greedy";
}

struct PolicySpec {
  std::vector<PolicyOp> encoder;
  /// logit_i = <enc(G), enc(D_i)> * scoreScale (spec §4: 1/sqrt(d)).
  float scoreScale = 0.125f;
  /// Whether the program's eval.select supports SelectMode::Sampled (its
  /// `modes`; greedy it always supports).
  bool sampled = true;
};

struct ProgramSpec {
  std::string name;
  ShapeParams shape;
  PolicySpec policy;
};

/// The op's name in the bundle and the report ("atom_embed", ...).
inline const char *policyOpName(PolicyOpKind kind) {
  switch (kind) {
  case PolicyOpKind::AtomEmbed:
    return "atom_embed";
  case PolicyOpKind::Relu:
    return "relu";
  case PolicyOpKind::SumAtoms:
    return "sum_atoms";
  case PolicyOpKind::Linear:
    return "linear";
  case PolicyOpKind::LayerNorm:
    return "layer_norm";
  }
  return "?";
}

} // namespace proofc

#endif // PROOFC_CONTRACT_PROGRAM_H
