//===- Candidates.h - Queries, filtered corruptions, sampling ---*- C++ -*-===//
//
// Spec §6: the candidate list of (query, mode) is the positive followed by its
// filtered corruptions in ascending entity order, optionally sampled with the
// SplitMix64 partial Fisher-Yates of the spec.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CANDIDATES_H
#define PROOFC_RUNTIME_CANDIDATES_H

#include "proofc/runtime/Dataset.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace proofc {

/// The standard SplitMix64 generator.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next();

private:
  uint64_t state_;
};

enum class Mode : uint8_t { Head = 0, Tail = 1 };
const char *modeName(Mode mode);

struct Candidate {
  Triple triple;
  int32_t query; ///< index into CandidateSet::queries
  Mode mode;
  int32_t entity; ///< the entity put in the corrupted position (h or t)
};

/// One (query, mode) pair: candidates[begin] is the positive, then corruptions.
struct CandidateGroup {
  int32_t query;
  Mode mode;
  int64_t begin, end;
};

/// What a run evaluates: one definition for the runtime, the tools
/// (--split, --corruptions, --seed, --queries, --facts) and Python (the
/// keywords of the same names); the defaults here are the defaults
/// everywhere (docs/options.md).
struct CandidateOptions {
  std::string split = "test"; ///< "train" | "valid" | "test": the queries
  /// Corruptions sampled per query and mode; <= 0 (the default): every
  /// filtered corruption (the full ranking).
  int64_t corruptions = 0;
  uint64_t seed = 0;    ///< the corruption sampler's
  int64_t queries = -1; ///< only the first N queries; < 0: all
  /// The facts the prover may use: train (false) or train and valid.
  bool factsIncludeValid = false;
};

struct CandidateSet {
  std::vector<Triple> queries; ///< deduplicated split, first N
  std::vector<Candidate> candidates;
  std::vector<CandidateGroup> groups; ///< query-major, head before tail
};

/// Every candidate at once: about 24 B each (fb15k-237's test split with
/// every filtered corruption: 585,558,015 candidates, 14 GB). A run streams
/// blocks instead (CandidateBuilder); this is for small pools and tests.
CandidateSet buildCandidates(const Dataset &ds, const CandidateOptions &opts);

/// A candidate set's shape without its candidates: the queries and where
/// every (query, mode) list starts in the whole pool, known before any
/// candidate is built (a query is in T, so its filtered corruptions number E
/// minus its known heads or tails; sampled: min(K, that)). 8 B per list.
struct CandidateLayout {
  std::vector<Triple> queries; ///< deduplicated split, first N
  /// groupBegin[2q + m] is the first candidate of query q's list of mode m
  /// (0 head, 1 tail); groupBegin[2Q] is the pool's size.
  std::vector<int64_t> groupBegin{0};
  int64_t queryCount() const { return static_cast<int64_t>(queries.size()); }
  int64_t candidateCount() const { return groupBegin.back(); }
  /// The first candidate of `query` (0 <= query <= Q; Q: the pool's size).
  int64_t firstCandidateOf(int64_t query) const {
    return groupBegin[static_cast<size_t>(2 * query)];
  }
  /// The candidates of list `list` = 2 query + mode (0 head, 1 tail): its
  /// positive and its corruptions.
  int64_t listSize(int64_t list) const {
    const size_t at = static_cast<size_t>(list);
    return groupBegin[at + 1] - groupBegin[at];
  }
};

/// The layout of a built set (its groups are query-major, head first).
CandidateLayout layoutOf(const CandidateSet &set);

/// Builds the candidates of any range of queries on demand, from the
/// filtering index (T sorted twice: 24 B per known triple) and the layout:
/// the whole pool never has to be held. build() is const and may run on
/// several threads at once.
class CandidateBuilder {
public:
  /// `ds` must outlive the builder.
  CandidateBuilder(const Dataset &ds, const CandidateOptions &opts);
  ~CandidateBuilder();
  CandidateBuilder(const CandidateBuilder &) = delete;
  CandidateBuilder &operator=(const CandidateBuilder &) = delete;

  const CandidateLayout &layout() const { return layout_; }
  /// Which corruptions the list of (`query`, `mode`) holds: two lists with
  /// the same key >= 0 hold the same ones in the same order (spec §6: a list
  /// that takes every filtered corruption is fixed by its mode, relation
  /// and kept entity -- (r, t) in head mode, (h, r) in tail mode -- so the
  /// queries that share them share it); -1 for a sampled list (its sample
  /// depends on its query's index). What the session's shared lists are
  /// keyed by (docs/scale-out.md, "Shared lists").
  int64_t corruptionsKey(int64_t query, Mode mode) const;
  /// The candidates of the queries [queryBegin, queryEnd): `queries` is the
  /// whole list (Candidate::query and CandidateGroup::query keep their
  /// global indices), `candidates` only the range's, and the groups are
  /// renumbered to them (the first starts at 0). Equal, candidate for
  /// candidate, to that range of buildCandidates(). Throws proofc::Error
  /// when the range is not within the queries.
  /// `reserve`: room for at least this many candidates (a block padded
  /// later, without a reallocation). `positiveOnly` (may be empty): the
  /// lists it returns true for hold their positive alone (the session's
  /// shared lists: their corruptions run with another list's).
  CandidateSet build(int64_t queryBegin, int64_t queryEnd, int64_t reserve = 0,
                     const std::function<bool(int64_t query, Mode mode)>
                         &positiveOnly = {}) const;

private:
  class Known;
  const Dataset &dataset_;
  CandidateOptions options_;
  std::unique_ptr<Known> known_;
  CandidateLayout layout_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CANDIDATES_H
