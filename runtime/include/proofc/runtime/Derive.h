//===- Derive.h - Spec §3's derive() of arbitrary states ---------*- C++
//-*-===//
//
// StateDeriver::derive() runs the engine's step (spec §3) on states the
// caller chooses, not only on the states a proof loop reaches: a search over
// the engine (the shortest-proof search of the imitation warm start,
// docs/training.md) expands whole levels of states with it. The result is
// what a rollout records as a step's derived list (docs/rollouts.md), for
// each state in the engine's order, with the per-candidate exclusion of the
// candidate's own fact. It runs the host engine whatever the device of the
// session it is made for. This header is the contract between the runtime
// and the Python binding (Evaluator.derive).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_DERIVE_H
#define PROOFC_RUNTIME_DERIVE_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Dataset.h"

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

namespace proofc {

/// The derived lists of N states, concatenated: state i's list is the
/// count[i] states from offset_i, the exclusive prefix sum of count; each
/// state A atoms in the encoding of docs/rollouts.md (constants >= 0,
/// variable Vk = -k, padding atoms (-1, 0, 0) after the goals, [TRUE] =
/// (R, 0, 0) and [FALSE] = (R + 1, 0, 0) followed by padding).
///
/// The states stay in the blocks the host threads wrote them to until
/// copyStates() puts them where the caller wants them (the binding: a numpy
/// array), so that a large result (a search level: ~10^7 states, 1 GB) is
/// written once and copied once, never regrown.
class DerivedLists {
public:
  std::vector<int32_t> count; ///< [N]: 1..S; 0 for a terminal input state

  /// Σ count.
  int64_t numStates() const {
    return std::accumulate(count.begin(), count.end(), int64_t(0));
  }
  /// Writes the numStates() states, in input order, to dst (numStates() * A
  /// atoms).
  void copyStates(Atom *dst) const;
  /// Calls f(i, j, state) for each of the numStates() states (A atoms each,
  /// where they lie), in input order: the state at index j of input state
  /// i's list.
  template <typename F> void forEachState(int32_t A, F &&f) const {
    forEachStateOf(0, count.size(), A, f);
  }
  /// The same for the lists of input states [begin, end) alone (threads may
  /// walk disjoint ranges at once).
  template <typename F>
  void forEachStateOf(size_t begin, size_t end, int32_t A, F &&f) const {
    const size_t width = static_cast<size_t>(A);
    // The first state's block and offset.
    size_t skip = 0;
    for (size_t i = 0; i < begin; ++i)
      skip += static_cast<size_t>(count[i]);
    size_t block = 0;
    while (block < blocks_.size() && skip >= blocks_[block].size() / width) {
      skip -= blocks_[block].size() / width;
      ++block;
    }
    size_t at = skip * width;
    for (size_t list = begin; list < end; ++list)
      for (int32_t j = 0; j < count[list]; ++j) {
        while (at >= blocks_[block].size()) {
          ++block;
          at = 0;
        }
        f(list, j, blocks_[block].data() + at);
        at += width;
      }
  }

private:
  friend class StateDeriver;
  std::vector<std::vector<Atom>> blocks_; ///< in input order, each filled
};

/// The host engine over one dataset's facts and rules, for derive() calls
/// on any states (its knowledge base built once, at construction).
class StateDeriver {
public:
  /// F = train (+ valid when `factsIncludeValid`), the program's A and S;
  /// `threads` host threads per call (0: every core).
  StateDeriver(const Dataset &dataset, const ShapeParams &shape,
               bool factsIncludeValid, int threads);
  ~StateDeriver();
  StateDeriver(const StateDeriver &) = delete;
  StateDeriver &operator=(const StateDeriver &) = delete;

  /// Spec §3's derive() of each states[i] ([N][A] atoms in DerivedLists'
  /// encoding, canonical) as a step of candidate candidates[i] (its own
  /// fact never used). A terminal input ([TRUE] or [FALSE]) gets an empty
  /// list. Throws proofc::Error naming the state or candidate for a size
  /// mismatch, an id out of range, a state that is not canonical or has
  /// goals after a padding atom.
  DerivedLists derive(const std::vector<Atom> &states,
                      const std::vector<Triple> &candidates) const;

  const ShapeParams &shape() const;
  int32_t numEntities() const;  ///< E
  int32_t numRelations() const; ///< R: [TRUE] is (R, 0, 0)
  int threads() const;          ///< host threads a call uses at most

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_DERIVE_H
