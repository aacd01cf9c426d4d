//===- Engine.h - The proof-step engine derive(G, c) ------------*- C++ -*-===//
//
// Spec §2-§3. A proof state is A atoms: the goals in canonical form (variables
// -1, -2, ... by first occurrence) followed by padding atoms (kPadPred, 0, 0).
// derive() writes the 1..S successor states of a non-terminal state, or
// exactly [TRUE] / [FALSE], into a caller-owned DerivedSet that also holds all
// scratch memory, so a call allocates nothing once the set is constructed.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_ENGINE_H
#define PROOFC_RUNTIME_ENGINE_H

#include "data/KnowledgeBase.h"
#include "proofc/contract/Program.h"
#include "proofc/runtime/Dataset.h"

#include <climits>
#include <cstdint>
#include <vector>

namespace proofc {

inline constexpr Atom kPadAtom{kPadPred, 0, 0};

/// Number of goal atoms of a state (the atoms before the first padding atom).
int32_t stateSize(const Atom *state, int32_t A);

/// Writes in[0..n) to out[0..n) with the variables renamed -1, -2, ... by
/// first occurrence (arg0 before arg1, left to right); in and out must not
/// overlap. `varMap` must hold one entry per variable id (index k for
/// variable -k) and be all zero; it is all zero again on return.
void canonicalize(const Atom *in, int32_t n, Atom *out, int32_t *varMap);

/// The start state canon([(r, h, t)]) of a candidate: the triple, then padding.
void initialState(const Triple &candidate, int32_t A, Atom *out);

/// derive() output: states [count][A] plus the scratch derive() needs.
class DerivedSet {
public:
  DerivedSet(const KnowledgeBase &kb, const ShapeParams &shape);

  int32_t count = 0;
  const Atom *state(int32_t i) const {
    return states_.data() + static_cast<size_t>(i) * A_;
  }
  /// Bytes a DerivedSet for `shape` allocates (its [S][A] states and its
  /// hash table; the per-rule scratch is small), for the host backend's
  /// up-front memory check.
  static uint64_t bytesFor(const ShapeParams &shape);
  int32_t A() const { return A_; }
  int32_t S() const { return S_; }
  /// The clause that first yielded state i (spec §3 step 4 keeps the first
  /// occurrence): a fact (its index into KnowledgeBase::facts) or a rule (its
  /// index into KnowledgeBase rules, the file order). For [TRUE] it is the
  /// first fact that matched the single goal; [FALSE] has none (-1 fact).
  /// The proofs' replay (Proofs.h) reads it; derive() records it always (one
  /// int32 per kept state).
  bool fromRule(int32_t i) const {
    return origins_[i] < 0 && origins_[i] != kNoOrigin;
  }
  int32_t clauseIndex(int32_t i) const {
    return origins_[i] >= 0           ? origins_[i]
           : origins_[i] == kNoOrigin ? -1
                                      : -origins_[i] - 1;
  }
  static constexpr int32_t kNoOrigin = INT32_MIN;
  /// True when the result is exactly [TRUE] / [FALSE].
  bool isTrue() const { return count == 1 && states_[0].p == truePred_; }
  bool isFalse() const { return count == 1 && states_[0].p == falsePred_; }

private:
  friend void derive(const KnowledgeBase &, const Atom *, const Triple &,
                     const ShapeParams &, DerivedSet &);
  int32_t A_, S_, truePred_, falsePred_;
  std::vector<Atom> states_; ///< [S][A]
  /// [S]: fact index f >= 0, rule r as -(r + 1), kNoOrigin for [FALSE].
  std::vector<int32_t> origins_;
  std::vector<Atom> work_;      ///< one state being built (up to A atoms)
  std::vector<int32_t> varMap_; ///< canonicalize() scratch, all zero
  std::vector<int32_t> bind_;   ///< unifier bindings per variable id
  // Open-addressing hash set of state indices; a slot is live only when its
  // stamp equals the current epoch, so it is never cleared between calls.
  std::vector<int32_t> slots_;
  std::vector<uint32_t> stamps_;
  uint32_t epoch_ = 0;
  uint32_t mask_ = 0;
};

/// Spec §3: the successors of the non-terminal state `goals` (A atoms,
/// canonical) of `candidate`, written to `out` (constructed for this kb and
/// shape). The fact (r, h, t) of the candidate itself is never used.
void derive(const KnowledgeBase &kb, const Atom *goals, const Triple &candidate,
            const ShapeParams &shape, DerivedSet &out);

} // namespace proofc

#endif // PROOFC_RUNTIME_ENGINE_H
