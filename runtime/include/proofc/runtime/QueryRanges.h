//===- QueryRanges.h - Contiguous blocks of queries, defined once -*- C++
//-*-===//
//
// Evaluation is parallel by query: ranking needs only each query's own
// candidates (spec §6), and a candidate set is query-major, so the
// candidates of the queries [a, b) are one contiguous range of the pool.
// Every way of cutting a run -- `--shard i/n` (and, later, MPI ranks = shards),
// `--checkpoint` ranges -- cuts it here, deterministically from the candidate
// set alone, so that two processes given the same inputs agree on every
// boundary (docs/scale-out.md).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_QUERYRANGES_H
#define PROOFC_RUNTIME_QUERYRANGES_H

#include "proofc/runtime/Candidates.h"

#include <cstdint>
#include <vector>

namespace proofc {

/// The queries [queryBegin, queryEnd) of a candidate set and their
/// candidates [candidateBegin, candidateEnd).
struct QueryRange {
  int64_t queryBegin = 0, queryEnd = 0;
  int64_t candidateBegin = 0, candidateEnd = 0;
  int64_t queries() const { return queryEnd - queryBegin; }
  int64_t candidates() const { return candidateEnd - candidateBegin; }
  bool operator==(const QueryRange &o) const {
    return queryBegin == o.queryBegin && queryEnd == o.queryEnd &&
           candidateBegin == o.candidateBegin && candidateEnd == o.candidateEnd;
  }
};

/// Each function takes the built set or its layout (CandidateLayout: no
/// candidates needed) and gives the same ranges for both.

/// The candidates of the queries [queryBegin, queryEnd) of `set`. Throws
/// proofc::Error when the range is not within the set's queries.
QueryRange queryRange(const CandidateSet &set, int64_t queryBegin,
                      int64_t queryEnd);
QueryRange queryRange(const CandidateLayout &layout, int64_t queryBegin,
                      int64_t queryEnd);

/// Every query of `set`.
QueryRange wholeRange(const CandidateSet &set);
QueryRange wholeRange(const CandidateLayout &layout);

/// The most shards a run may be cut into.
inline constexpr int64_t kMaxShards = int64_t{1} << 24;

/// Shard `index` of `count` (0 <= index < count): the queries
/// [floor(index * Q / count), floor((index + 1) * Q / count)) of the Q
/// queries. Shards are disjoint, in query order, and cover every query;
/// some are empty when count > Q. Throws proofc::Error("--shard ...") when
/// index or count is out of range (count: 1 to kMaxShards).
QueryRange shardRange(const CandidateSet &set, int64_t index, int64_t count);
QueryRange shardRange(const CandidateLayout &layout, int64_t index,
                      int64_t count);

/// `within` cut greedily, in query order, into ranges of whole queries of at
/// least `targetCandidates` candidates each (the last may have fewer; a
/// query with more stays whole). `targetCandidates` <= 0: one range. An
/// empty `within` gives no range.
std::vector<QueryRange> splitRange(const CandidateSet &set,
                                   const QueryRange &within,
                                   int64_t targetCandidates);
std::vector<QueryRange> splitRange(const CandidateLayout &layout,
                                   const QueryRange &within,
                                   int64_t targetCandidates);

/// `within` cut into `count` (>= 1) ranges of whole queries of nearly equal
/// candidates: cut k is the first query that starts at or after k/count of
/// the way (so each range is within one query of within/count); empty
/// ranges (count above the queries) are left out. For several device
/// workers: a multiple of their number ends them together.
std::vector<QueryRange> splitRangeEvenly(const CandidateLayout &layout,
                                         const QueryRange &within,
                                         int64_t count);

/// The blocks of a streamed call over `within` for `workers` (>= 1) device
/// workers: splitRange's ranges of at least `targetCandidates`, and, for
/// several workers and blocks whose count is not a multiple of theirs,
/// splitRangeEvenly into the next multiple instead (a last short block
/// would leave the other workers idle for up to one block's run).
std::vector<QueryRange> streamBlocks(const CandidateLayout &layout,
                                     const QueryRange &within,
                                     int64_t targetCandidates, int64_t workers);

} // namespace proofc

#endif // PROOFC_RUNTIME_QUERYRANGES_H
