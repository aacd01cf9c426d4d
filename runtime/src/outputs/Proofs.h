//===- Proofs.h - Derivations replayed from recorded actions ----*- C++ -*-===//
//
// docs/proofs.md. A backend records only the action every step chose
// (ActionTrace: D small integers per candidate). replayProof() is the one
// definition of a proof whatever backend ran: it re-derives the states with
// the host engine (Engine.h), follows the recorded indices and spells out
// each step as an SLD resolution step -- the goals, the clause that yielded
// the chosen state (DerivedSet's origin: a fact, or a rule renamed apart),
// the most general unifier and the resolvent. It checks every recorded index
// against the list derive() made, that each resolvent is the engine's state,
// and that the replay ends where the backend said (PROVED at its depth);
// anything else is a proofc::Error naming the candidate and the step.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PROOFS_H
#define PROOFC_RUNTIME_PROOFS_H

#include "data/KnowledgeBase.h"
#include "host/Engine.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace proofc {

/// One SLD resolution step. Terms are int32 as in Dataset.h: constants
/// >= 0, variable Vk is -k. The goals' variables are V1..Vm (canonical);
/// a rule's variable j is renamed apart to V(m + j), as derive() does.
struct ProofStep {
  std::vector<Atom> goals; ///< the state before the step (canonical)
  int32_t action = 0;      ///< the recorded index into derive()'s list
  int32_t derived = 0;     ///< how many states derive() listed
  int32_t fact = -1;       ///< the clause: a fact (KnowledgeBase::facts) ...
  int32_t rule = -1;       ///< ... or a rule (Dataset::rules, file order)
  Atom ruleHead{};         ///< the rule renamed apart (rule steps)
  std::vector<Atom> ruleBody;
  /// The most general unifier of the first goal and the clause's head (the
  /// fact): (k, term) for every variable Vk it binds, by k; idempotent
  /// (no term is a bound variable).
  std::vector<std::pair<int32_t, int32_t>> substitution;
  /// θ(body ++ rest) (θ(rest) for a fact), before the renaming to canonical
  /// form that makes the next step's goals; empty: every goal resolved.
  std::vector<Atom> resolvent;
};

struct Proof {
  /// The candidate's index in the whole pool (replayProof's firstCandidate
  /// + its index in the set replayed from).
  int64_t candidate = 0;
  std::vector<ProofStep> steps;
};

/// Replays candidate `index` of `set` (its outcome must be PROVED) from its
/// recorded actions (trace row `index`) with the engine over `kb`: see the
/// file comment. `scratch` is a DerivedSet for kb and `shape`. `set` may be
/// a block of the pool (CandidateLayout::build) whose first candidate is
/// the pool's `firstCandidate`: the proof and any error name the candidate
/// by its index in the pool.
Proof replayProof(const KnowledgeBase &kb, const Dataset &dataset,
                  const ShapeParams &shape, const CandidateSet &set,
                  int64_t index, const Outcome &outcome,
                  const ActionTrace &trace, DerivedSet &scratch,
                  int64_t firstCandidate = 0);

} // namespace proofc

#endif // PROOFC_RUNTIME_PROOFS_H
