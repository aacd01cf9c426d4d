//===- QueryRanges.cpp - Contiguous blocks of queries, defined once -------===//
#include "proofc/runtime/QueryRanges.h"

#include "Fail.h"

#include <algorithm>

namespace proofc {
namespace {

/// The first candidate of the first group whose query is >= `query` (the
/// pool's size when there is none): groups are query-major.
int64_t firstCandidateOf(const CandidateSet &set, int64_t query) {
  auto it = std::lower_bound(
      set.groups.begin(), set.groups.end(), query,
      [](const CandidateGroup &g, int64_t q) { return g.query < q; });
  return it == set.groups.end() ? static_cast<int64_t>(set.candidates.size())
                                : it->begin;
}

} // namespace

QueryRange queryRange(const CandidateSet &set, int64_t queryBegin,
                      int64_t queryEnd) {
  const int64_t queries = static_cast<int64_t>(set.queries.size());
  if (queryBegin < 0 || queryBegin > queryEnd || queryEnd > queries)
    fail("query range [{}, {}) is not within the {} queries", queryBegin,
         queryEnd, queries);
  QueryRange r;
  r.queryBegin = queryBegin;
  r.queryEnd = queryEnd;
  r.candidateBegin = firstCandidateOf(set, queryBegin);
  r.candidateEnd = firstCandidateOf(set, queryEnd);
  return r;
}

QueryRange wholeRange(const CandidateSet &set) {
  return queryRange(set, 0, static_cast<int64_t>(set.queries.size()));
}

QueryRange shardRange(const CandidateSet &set, int64_t index, int64_t count) {
  if (count < 1 || count > kMaxShards)
    fail("--shard {}/{}: the shard count must be 1 to {}", index, count,
         kMaxShards);
  if (index < 0 || index >= count)
    fail("--shard {}/{}: the shard index must be in 0..{}", index, count,
         count - 1);
  const int64_t q = static_cast<int64_t>(set.queries.size());
  // i * q < 2^24 * 2^31: exact in int64.
  auto bound = [&](int64_t i) { return i * q / count; };
  return queryRange(set, bound(index), bound(index + 1));
}

std::vector<QueryRange> splitRange(const CandidateSet &set,
                                   const QueryRange &within,
                                   int64_t targetCandidates) {
  std::vector<QueryRange> out;
  if (within.queryBegin >= within.queryEnd)
    return out;
  if (targetCandidates <= 0) {
    out.push_back(within);
    return out;
  }
  int64_t begin = within.queryBegin;
  while (begin < within.queryEnd) {
    const int64_t start = firstCandidateOf(set, begin);
    int64_t end = begin + 1;
    while (end < within.queryEnd &&
           firstCandidateOf(set, end) - start < targetCandidates)
      ++end;
    out.push_back(queryRange(set, begin, end));
    begin = end;
  }
  return out;
}

} // namespace proofc
