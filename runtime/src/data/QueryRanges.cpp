//===- QueryRanges.cpp - Contiguous blocks of queries, defined once -------===//
//
// Written once over "the first candidate of query q", which a built set
// answers from its groups and a layout from its offsets.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/QueryRanges.h"

#include "support/Fail.h"

#include <algorithm>

namespace proofc {
namespace {

/// The first candidate of the first group whose query is >= `query` (the
/// pool's size when there is none): groups are query-major.
struct SetStarts {
  const CandidateSet &set;
  int64_t queries() const { return static_cast<int64_t>(set.queries.size()); }
  int64_t operator()(int64_t query) const {
    auto it = std::lower_bound(
        set.groups.begin(), set.groups.end(), query,
        [](const CandidateGroup &g, int64_t q) { return g.query < q; });
    return it == set.groups.end() ? static_cast<int64_t>(set.candidates.size())
                                  : it->begin;
  }
};

struct LayoutStarts {
  const CandidateLayout &layout;
  int64_t queries() const { return layout.queryCount(); }
  int64_t operator()(int64_t query) const {
    return layout.firstCandidateOf(query);
  }
};

template <typename Starts>
QueryRange rangeOf(const Starts &starts, int64_t queryBegin, int64_t queryEnd) {
  const int64_t queries = starts.queries();
  if (queryBegin < 0 || queryBegin > queryEnd || queryEnd > queries)
    fail("query range [{}, {}) is not within the {} queries", queryBegin,
         queryEnd, queries);
  QueryRange r;
  r.queryBegin = queryBegin;
  r.queryEnd = queryEnd;
  r.candidateBegin = starts(queryBegin);
  r.candidateEnd = starts(queryEnd);
  return r;
}

template <typename Starts>
QueryRange shardOf(const Starts &starts, int64_t index, int64_t count) {
  if (count < 1 || count > kMaxShards)
    fail("--shard {}/{}: the shard count must be 1 to {}", index, count,
         kMaxShards);
  if (index < 0 || index >= count)
    fail("--shard {}/{}: the shard index must be in 0..{}", index, count,
         count - 1);
  const int64_t q = starts.queries();
  // i * q < 2^24 * 2^31: exact in int64.
  auto bound = [&](int64_t i) { return i * q / count; };
  return rangeOf(starts, bound(index), bound(index + 1));
}

template <typename Starts>
std::vector<QueryRange> splitOf(const Starts &starts, const QueryRange &within,
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
    const int64_t start = starts(begin);
    int64_t end = begin + 1;
    while (end < within.queryEnd && starts(end) - start < targetCandidates)
      ++end;
    out.push_back(rangeOf(starts, begin, end));
    begin = end;
  }
  return out;
}

} // namespace

QueryRange queryRange(const CandidateSet &set, int64_t queryBegin,
                      int64_t queryEnd) {
  return rangeOf(SetStarts{set}, queryBegin, queryEnd);
}
QueryRange queryRange(const CandidateLayout &layout, int64_t queryBegin,
                      int64_t queryEnd) {
  return rangeOf(LayoutStarts{layout}, queryBegin, queryEnd);
}

QueryRange wholeRange(const CandidateSet &set) {
  return queryRange(set, 0, static_cast<int64_t>(set.queries.size()));
}
QueryRange wholeRange(const CandidateLayout &layout) {
  return queryRange(layout, 0, layout.queryCount());
}

QueryRange shardRange(const CandidateSet &set, int64_t index, int64_t count) {
  return shardOf(SetStarts{set}, index, count);
}
QueryRange shardRange(const CandidateLayout &layout, int64_t index,
                      int64_t count) {
  return shardOf(LayoutStarts{layout}, index, count);
}

std::vector<QueryRange> splitRange(const CandidateSet &set,
                                   const QueryRange &within,
                                   int64_t targetCandidates) {
  return splitOf(SetStarts{set}, within, targetCandidates);
}
std::vector<QueryRange> splitRange(const CandidateLayout &layout,
                                   const QueryRange &within,
                                   int64_t targetCandidates) {
  return splitOf(LayoutStarts{layout}, within, targetCandidates);
}

std::vector<QueryRange> splitRangeEvenly(const CandidateLayout &layout,
                                         const QueryRange &within,
                                         int64_t count) {
  if (count < 1)
    fail("cannot cut queries [{}, {}) into {} ranges", within.queryBegin,
         within.queryEnd, count);
  const LayoutStarts starts{layout};
  std::vector<QueryRange> out;
  const int64_t total = within.candidates();
  int64_t begin = within.queryBegin;
  for (int64_t k = 1; k <= count; ++k) {
    int64_t end = within.queryEnd;
    if (k < count) {
      // k * total < 2^24 * 2^40 would overflow for huge counts: in double,
      // then the first query starting at or after it.
      const int64_t at = within.candidateBegin +
                         static_cast<int64_t>(static_cast<double>(total) *
                                              static_cast<double>(k) /
                                              static_cast<double>(count));
      int64_t lo = begin, hi = within.queryEnd;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (starts(mid) < at)
          lo = mid + 1;
        else
          hi = mid;
      }
      end = lo;
    }
    if (end > begin)
      out.push_back(rangeOf(starts, begin, end));
    begin = end;
  }
  return out;
}

std::vector<QueryRange> streamBlocks(const CandidateLayout &layout,
                                     const QueryRange &within,
                                     int64_t targetCandidates,
                                     int64_t workers) {
  std::vector<QueryRange> blocks = splitRange(layout, within, targetCandidates);
  const int64_t count = static_cast<int64_t>(blocks.size());
  if (workers > 1 && count > 1 && count % workers)
    blocks = splitRangeEvenly(layout, within,
                              (count + workers - 1) / workers * workers);
  return blocks;
}

} // namespace proofc
