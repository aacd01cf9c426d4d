//===- Candidates.cpp - Queries, filtered corruptions, sampling -----------===//
//
// Spec §6. Filtering uses T = train ∪ valid ∪ test sorted twice, by (r, h, t)
// and by (r, t, h): the known tails of (h, r, ·) and the known heads of
// (·, r, t) are then contiguous sorted ranges, so building one candidate list
// is one merge-like pass over the entity ids.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Candidates.h"

#include "data/MemoryBudget.h"
#include "proofc/runtime/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace proofc {

uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

const char *modeName(Mode mode) {
  switch (mode) {
  case Mode::Head:
    return "head";
  case Mode::Tail:
    return "tail";
  }
  return "?";
}

namespace {

struct TripleHash {
  size_t operator()(const Triple &t) const {
    uint64_t x = static_cast<uint32_t>(t.h);
    x = x * 0x9E3779B97F4A7C15ull ^ static_cast<uint32_t>(t.r);
    x = x * 0x9E3779B97F4A7C15ull ^ static_cast<uint32_t>(t.t);
    return static_cast<size_t>(x ^ (x >> 29));
  }
};

} // namespace

/// The known-true set T, indexed for "which e make (e, r, t) / (h, r, e)
/// known".
class CandidateBuilder::Known {
public:
  explicit Known(const Dataset &ds) {
    for (const auto *split : {&ds.train, &ds.valid, &ds.test})
      byRHT_.insert(byRHT_.end(), split->begin(), split->end());
    std::sort(byRHT_.begin(), byRHT_.end(), lessRHT);
    byRHT_.erase(std::unique(byRHT_.begin(), byRHT_.end()), byRHT_.end());
    byRTH_ = byRHT_;
    std::sort(byRTH_.begin(), byRTH_.end(), lessRTH);
  }

  /// Sorted tails e with (h, r, e) ∈ T.
  std::vector<int32_t> tails(int32_t h, int32_t r) const {
    auto range =
        std::equal_range(byRHT_.begin(), byRHT_.end(), Triple{h, r, 0}, sameRH);
    std::vector<int32_t> out;
    for (auto it = range.first; it != range.second; ++it)
      out.push_back(it->t);
    return out;
  }

  /// How many tails / heads tails(h, r) / heads(r, t) would return.
  int64_t countTails(int32_t h, int32_t r) const {
    auto range =
        std::equal_range(byRHT_.begin(), byRHT_.end(), Triple{h, r, 0}, sameRH);
    return range.second - range.first;
  }
  int64_t countHeads(int32_t r, int32_t t) const {
    auto range =
        std::equal_range(byRTH_.begin(), byRTH_.end(), Triple{0, r, t}, sameRT);
    return range.second - range.first;
  }

  /// Sorted heads e with (e, r, t) ∈ T.
  std::vector<int32_t> heads(int32_t r, int32_t t) const {
    auto range =
        std::equal_range(byRTH_.begin(), byRTH_.end(), Triple{0, r, t}, sameRT);
    std::vector<int32_t> out;
    for (auto it = range.first; it != range.second; ++it)
      out.push_back(it->h);
    return out;
  }

private:
  static bool lessRHT(const Triple &a, const Triple &b) {
    if (a.r != b.r)
      return a.r < b.r;
    if (a.h != b.h)
      return a.h < b.h;
    return a.t < b.t;
  }
  static bool lessRTH(const Triple &a, const Triple &b) {
    if (a.r != b.r)
      return a.r < b.r;
    if (a.t != b.t)
      return a.t < b.t;
    return a.h < b.h;
  }
  static bool sameRH(const Triple &a, const Triple &b) {
    return a.r != b.r ? a.r < b.r : a.h < b.h;
  }
  static bool sameRT(const Triple &a, const Triple &b) {
    return a.r != b.r ? a.r < b.r : a.t < b.t;
  }

  std::vector<Triple> byRHT_, byRTH_;
};

namespace {

/// Ascending e in [0, E) with e != self and e not in `known` (sorted).
std::vector<int32_t> filteredCorruptions(int32_t numEntities, int32_t self,
                                         const std::vector<int32_t> &known) {
  std::vector<int32_t> out;
  out.reserve(numEntities);
  size_t k = 0;
  for (int32_t e = 0; e < numEntities; ++e) {
    while (k < known.size() && known[k] < e)
      ++k;
    if (e == self || (k < known.size() && known[k] == e))
      continue;
    out.push_back(e);
  }
  return out;
}

/// Spec §6 partial Fisher-Yates: the first K of the shuffled list, in order.
void sampleCorruptions(std::vector<int32_t> &list, int64_t k, uint64_t seed,
                       int64_t query, Mode mode) {
  uint64_t stream =
      2 * static_cast<uint64_t>(query) + static_cast<uint64_t>(mode) + 1;
  SplitMix64 rng(seed ^ (stream * 0xD1B54A32D192ED03ull));
  uint64_t n = list.size();
  for (uint64_t j = 0; j < static_cast<uint64_t>(k); ++j) {
    uint64_t pick = j + rng.next() % (n - j);
    std::swap(list[j], list[pick]);
  }
  list.resize(static_cast<size_t>(k));
}

} // namespace

CandidateLayout layoutOf(const CandidateSet &set) {
  CandidateLayout layout;
  layout.queries = set.queries;
  layout.groupBegin.assign(2 * set.queries.size() + 1,
                           static_cast<int64_t>(set.candidates.size()));
  for (auto it = set.groups.rbegin(); it != set.groups.rend(); ++it) {
    const size_t at =
        2 * static_cast<size_t>(it->query) + static_cast<size_t>(it->mode);
    layout.groupBegin[at] = it->begin;
    // A list always holds its positive; a missing one (not a built set)
    // starts where the next does.
  }
  for (size_t i = layout.groupBegin.size() - 1; i-- > 0;)
    layout.groupBegin[i] =
        std::min(layout.groupBegin[i], layout.groupBegin[i + 1]);
  return layout;
}

CandidateBuilder::CandidateBuilder(const Dataset &ds,
                                   const CandidateOptions &opts)
    : dataset_(ds), options_(opts), known_(std::make_unique<Known>(ds)) {
  const std::vector<Triple> &split = ds.split(opts.split);
  std::unordered_set<Triple, TripleHash> seen;
  seen.reserve(split.size());
  for (const Triple &q : split) {
    if (opts.queries >= 0 &&
        static_cast<int64_t>(layout_.queries.size()) >= opts.queries)
      break;
    if (seen.insert(q).second)
      layout_.queries.push_back(q);
  }
  // Each list's size without building it: E minus the known heads (tails)
  // of the query, which is in T; sampled: at most K of them.
  const int64_t numEntities = ds.numEntities();
  layout_.groupBegin.reserve(2 * layout_.queries.size() + 1);
  int64_t total = 0; // < 2^31 * 2 * 2^31: no wrap
  for (const Triple &q : layout_.queries)
    for (Mode mode : {Mode::Head, Mode::Tail}) {
      const int64_t known = mode == Mode::Head ? known_->countHeads(q.r, q.t)
                                               : known_->countTails(q.h, q.r);
      int64_t n = std::max<int64_t>(0, numEntities - known);
      if (opts.corruptions > 0)
        n = std::min(n, opts.corruptions);
      total += 1 + n;
      layout_.groupBegin.push_back(total);
    }
}

CandidateBuilder::~CandidateBuilder() = default;

int64_t CandidateBuilder::corruptionsKey(int64_t query, Mode mode) const {
  const Triple q = layout_.queries.at(static_cast<size_t>(query));
  const int64_t corruptions =
      layout_.listSize(2 * query + static_cast<int64_t>(mode)) - 1;
  if (options_.corruptions > 0 && corruptions == options_.corruptions) {
    // K of them: every one only when there are no more than K.
    const int64_t known = mode == Mode::Head ? known_->countHeads(q.r, q.t)
                                             : known_->countTails(q.h, q.r);
    if (dataset_.numEntities() - known > options_.corruptions)
      return -1;
  }
  const int64_t kept = mode == Mode::Head ? q.t : q.h;
  // < 2^31 relations x 2^31 entities x 2 modes: no wrap.
  return ((static_cast<int64_t>(q.r) * dataset_.numEntities() + kept) << 1) |
         static_cast<int64_t>(mode);
}

CandidateSet CandidateBuilder::build(
    int64_t queryBegin, int64_t queryEnd, int64_t reserve,
    const std::function<bool(int64_t query, Mode mode)> &positiveOnly) const {
  const int64_t queries = layout_.queryCount();
  if (queryBegin < 0 || queryBegin > queryEnd || queryEnd > queries)
    throw Error(fmt::format("query range [{}, {}) is not within the {} queries",
                            queryBegin, queryEnd, queries));
  CandidateSet set;
  set.queries = layout_.queries;
  const int64_t first = layout_.firstCandidateOf(queryBegin);
  int64_t count = layout_.firstCandidateOf(queryEnd) - first;
  if (positiveOnly)
    for (int64_t qi = queryBegin; qi < queryEnd; ++qi)
      for (Mode mode : {Mode::Head, Mode::Tail})
        if (positiveOnly(qi, mode))
          count -= layout_.listSize(2 * qi + static_cast<int64_t>(mode)) - 1;
  checkMemoryFits(
      saturatingBytes(static_cast<uint64_t>(count), sizeof(Candidate)),
      fmt::format("the candidate pool of the {} split", options_.split),
      fmt::format("{} candidates × {} B",
                  formatCount(static_cast<uint64_t>(count)),
                  sizeof(Candidate)));
  set.candidates.reserve(static_cast<size_t>(std::max(count, reserve)));
  set.groups.reserve(static_cast<size_t>(2 * (queryEnd - queryBegin)));
  const int32_t numEntities = dataset_.numEntities();
  for (int64_t qi = queryBegin; qi < queryEnd; ++qi) {
    const Triple q = layout_.queries[static_cast<size_t>(qi)];
    for (Mode mode : {Mode::Head, Mode::Tail}) {
      const bool alone = positiveOnly && positiveOnly(qi, mode);
      std::vector<int32_t> list;
      if (!alone)
        list =
            mode == Mode::Head
                ? filteredCorruptions(numEntities, q.h, known_->heads(q.r, q.t))
                : filteredCorruptions(numEntities, q.t,
                                      known_->tails(q.h, q.r));
      if (!alone && options_.corruptions > 0 &&
          static_cast<int64_t>(list.size()) > options_.corruptions)
        sampleCorruptions(list, options_.corruptions, options_.seed, qi, mode);

      CandidateGroup group;
      group.query = static_cast<int32_t>(qi);
      group.mode = mode;
      group.begin = static_cast<int64_t>(set.candidates.size());
      int32_t positive = mode == Mode::Head ? q.h : q.t;
      set.candidates.push_back({q, group.query, mode, positive});
      for (int32_t e : list) {
        Triple c =
            mode == Mode::Head ? Triple{e, q.r, q.t} : Triple{q.h, q.r, e};
        set.candidates.push_back({c, group.query, mode, e});
      }
      group.end = static_cast<int64_t>(set.candidates.size());
      set.groups.push_back(group);
    }
  }
  if (static_cast<int64_t>(set.candidates.size()) != count)
    throw Error(fmt::format("candidates of queries [{}, {}): built {}, the "
                            "layout says {}",
                            queryBegin, queryEnd, set.candidates.size(),
                            count));
  return set;
}

CandidateSet buildCandidates(const Dataset &ds, const CandidateOptions &opts) {
  // The pool's size is known before it is built (the layout): a pool that
  // cannot fit is refused now, not as std::bad_alloc after building most of
  // it; one that fits is allocated once (no growth by doubling).
  CandidateBuilder builder(ds, opts);
  return builder.build(0, builder.layout().queryCount());
}

} // namespace proofc
