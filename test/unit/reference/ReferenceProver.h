//===- ReferenceProver.h - A simple spec §3-§5 prover ----------*- C++ -*-===//
//
// An independent, naive implementation of the semantics for testing the
// runtime: states are std::vector<Atom> of goals only, every derive() scans
// every fact, substitutions are std::map, the policy is evaluated in double
// straight from the spec §4 formulas (no folding), one candidate at a time.
// It shares no code with KnowledgeBase, Engine, HostPolicy or HostBackend.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_REFERENCE_REFERENCEPROVER_H
#define PROOFC_TEST_UNIT_REFERENCE_REFERENCEPROVER_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Safetensors.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace proofc::reference {

/// The goals of a proof state, no padding. TRUE is [(R, 0, 0)], FALSE is
/// [(R+1, 0, 0)].
using State = std::vector<Atom>;

/// Spec §2: variables renamed -1, -2, ... by first occurrence.
State canonical(const State &state);

struct Choice {
  int index = 0;
  double logp = 0;
};
/// Spec §4 action rule and log-softmax, in double.
Choice choose(const std::vector<double> &logits);

class ReferenceProver {
public:
  /// `weights` may be null when only derive() is used. The policy tensors are
  /// looked up by their spec §4 names with L = shape.L layers.
  ReferenceProver(const Dataset &dataset, const TensorMap *weights,
                  const ShapeParams &shape, bool factsIncludeValid = false);

  /// Spec §3 for a non-terminal state.
  std::vector<State> derive(const State &goals, const Triple &candidate) const;
  /// Spec §4 enc(G) in double.
  std::vector<double> encode(const State &state) const;
  /// Spec §4 logits of the derived list of `parent`.
  std::vector<double> logits(const State &parent,
                             const std::vector<State> &children) const;
  /// Spec §5 for one candidate.
  Outcome prove(const Triple &candidate) const;
  std::vector<Outcome> proveAll(const CandidateSet &set) const;

  State trueState() const { return {{numRelations_, 0, 0}}; }
  State falseState() const { return {{numRelations_ + 1, 0, 0}}; }

private:
  std::vector<double> atomEmbedding(const Atom &atom) const;
  std::vector<double> row(const char *tensor, int index) const;
  /// The double copy of a tensor's values (weights_ is float32).
  std::vector<double> values(const std::string &tensor) const;

  int numEntities_, numRelations_;
  ShapeParams shape_;
  std::vector<Atom> facts_; ///< F, deduplicated, sorted by (p, s, o)
  std::vector<Rule> rules_;
  const TensorMap *weights_;
  /// Per layer l: mlp.l.weight transposed ([in][out], so the matrix-vector
  /// product runs along rows), mlp.l.bias, mlp.l.ln.weight, mlp.l.ln.bias.
  struct Layer {
    std::vector<double> weightT, bias, lnWeight, lnBias;
  };
  std::vector<Layer> layers_;
  /// Memo of atom(p, a, b): a pure function of the atom.
  mutable std::map<std::tuple<int, int, int>, std::vector<double>> atomCache_;
};

} // namespace proofc::reference

#endif // PROOFC_TEST_UNIT_REFERENCE_REFERENCEPROVER_H
