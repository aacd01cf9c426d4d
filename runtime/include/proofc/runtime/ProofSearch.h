//===- ProofSearch.h - The imitation warm start's shortest-proof search -*-
// C++ -*-===//
//
// The bounded best-first search of variant il (docs/training.md, "Variant
// il"; python/proofc/training/search.py drives it): from the start state of
// every train triple, level by level, every state of a level expanded with
// the engine's step (StateDeriver), the first [TRUE] of a triple's level
// ending its search, and per triple at most `keep` new states going on, the
// fewest goal atoms first, ties broken by draws the caller makes. It was
// numpy over whole arrays of derived states; here a level's states are
// filtered and deduplicated as the engine yields them (a hash set of the
// states each triple kept), which is what made wn18rr's search take five
// minutes (np.unique of 76-byte rows, sorted by generic comparisons).
//
// The caller draws the ties so that the result is the one the numpy search
// gave: it calls expand(p), draws expand's count of uniform doubles from its
// own generator (numpy's PCG64), and passes them to select(p), for each
// piece in turn, for each level (nextLevel()). The triples are searched in
// pieces of whole triples so that one expansion's derived lists stay small;
// each triple's search is its own and the pieces draw in turn, so the
// result does not depend on the piece size.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PROOFSEARCH_H
#define PROOFC_RUNTIME_PROOFSEARCH_H

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Derive.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace proofc {

class ProofSearch {
public:
  /// A search of every triple (head, relation, tail ids of the deriver's
  /// dataset) over `deriver`, which must outlive it: at most `keep` states
  /// per triple and level (>= 1), proofs of at most `maxDepth` steps
  /// (>= 0), at most `pieceStates` states (>= 1) per expansion. Throws
  /// proofc::Error for a bound out of range or a triple outside the
  /// dataset.
  ProofSearch(const StateDeriver &deriver, std::vector<Triple> triples,
              int32_t keep, int32_t maxDepth, int64_t pieceStates);
  ~ProofSearch();
  ProofSearch(const ProofSearch &) = delete;
  ProofSearch &operator=(const ProofSearch &) = delete;

  /// The pieces: max(1, min(N, pieceStates / keep)) triples each.
  int64_t numPieces() const;
  /// Starts the next level: false, and no level, once maxDepth levels ran
  /// or no piece has states left to expand.
  bool nextLevel();
  /// The levels started so far.
  int32_t levels() const;
  /// Expands piece p's states of this level: records the proofs found (the
  /// first [TRUE] of each triple in the engine's order), and collects the
  /// derived states that can still reach TRUE within maxDepth steps and
  /// that the triple has not kept before nor derived before at this level.
  /// Returns how many: the ties select() takes.
  int64_t expand(int64_t p);
  /// Keeps, per triple of piece p, the first `keep` states expand()
  /// collected in the order of (goal atoms, ties[i]), the next level's
  /// states; `ties` has one value per collected state, in expand()'s order
  /// (an equal pair keeps that order).
  void select(int64_t p, const double *ties, int64_t numTies);
  /// Per triple, the actions of its proof (indices into each step's derived
  /// list), or none when the search found none.
  std::vector<std::optional<std::vector<int32_t>>> paths() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_PROOFSEARCH_H
