//===- SharedLists.cpp - Lists of the same corruptions, run once ----------===//
#include "session/SharedLists.h"

#include "data/MemoryBudget.h"
#include "support/Fail.h"

#include <algorithm>
#include <limits>

namespace proofc {

uint64_t SharedLists::defaultKeepBytes() { return availableMemoryBytes() / 4; }

SharedLists::SharedLists(const CandidateBuilder &builder,
                         const QueryRange &range, bool enabled,
                         int32_t actionSteps, uint64_t keepBytes)
    : firstList_(2 * range.queryBegin), actionSteps_(actionSteps) {
  const CandidateLayout &layout = builder.layout();
  runLayout_ = layout;
  if (!enabled || range.queries() == 0)
    return;
  const int64_t lists = 2 * range.queries();
  std::vector<int64_t> key(static_cast<size_t>(lists));
  std::unordered_map<int64_t, int64_t> lastOf; // key -> its last list
  for (int64_t l = 0; l < lists; ++l) {
    const int64_t list = firstList_ + l;
    key[static_cast<size_t>(l)] =
        builder.corruptionsKey(list / 2, list % 2 ? Mode::Tail : Mode::Head);
    if (key[static_cast<size_t>(l)] >= 0)
      lastOf[key[static_cast<size_t>(l)]] = list;
  }
  source_.assign(static_cast<size_t>(lists), -1);
  lastCopy_.assign(static_cast<size_t>(lists), -1);
  // In list order: a key's first list becomes its source when some later
  // list has the key and keeping the source's corruptions until that list
  // fits beside the sources kept then (counted as if every copy were in a
  // later block: the bound holds for any cut into blocks).
  const uint64_t perCandidate =
      sizeof(KeptOutcome) +
      sizeof(int32_t) * static_cast<uint64_t>(actionSteps);
  std::unordered_map<int64_t, int64_t> current; // key -> its source
  std::vector<uint64_t> released(static_cast<size_t>(lists) + 1, 0);
  uint64_t alive = 0;
  for (int64_t l = 0; l < lists; ++l) {
    alive -= released[static_cast<size_t>(l)];
    const int64_t k = key[static_cast<size_t>(l)];
    if (k < 0)
      continue;
    const int64_t list = firstList_ + l;
    if (auto it = current.find(k); it != current.end()) {
      source_[static_cast<size_t>(l)] = it->second;
      lastCopy_[static_cast<size_t>(it->second - firstList_)] = list;
      ++copies_;
      shared_ += layout.listSize(list) - 1;
      continue;
    }
    const int64_t last = lastOf.at(k);
    if (last == list)
      continue; // no later list shares it
    const uint64_t bytes = saturatingBytes(
        static_cast<uint64_t>(layout.listSize(list) - 1), perCandidate);
    if (bytes > keepBytes || alive > keepBytes - bytes)
      continue; // not kept: the next list of the key tries again
    alive += bytes;
    released[static_cast<size_t>(last - firstList_) + 1] += bytes;
    current[k] = list;
  }
  // What runs: a copy's list is its positive alone.
  std::vector<int64_t> &begin = runLayout_.groupBegin;
  for (size_t i = 0; i + 1 < begin.size(); ++i) {
    const int64_t list = static_cast<int64_t>(i);
    begin[i + 1] = begin[i] + (copies(list) ? 1 : layout.listSize(list));
  }
}

bool SharedLists::copies(int64_t list) const { return source(list) >= 0; }

int64_t SharedLists::source(int64_t list) const {
  const int64_t l = list - firstList_;
  if (l < 0 || l >= static_cast<int64_t>(source_.size()))
    return -1;
  return source_[static_cast<size_t>(l)];
}

SharedLists::KeptOutcome SharedLists::KeptOutcome::pack(const Outcome &o) {
  if (o.depth < 0 || o.depth >= (1 << 30))
    fail("shared lists: an outcome of depth {} cannot be kept", o.depth);
  return {o.logp, static_cast<uint32_t>(o.depth) << 2 |
                      static_cast<uint32_t>(o.status)};
}

template <class Map>
const typename Map::mapped_type &
SharedLists::keptFor(const Map &kept, int64_t src, int64_t list) const {
  auto it = kept.find(src);
  if (it == kept.end())
    fail("shared lists: list {} takes list {}'s corruptions, which were not "
         "kept",
         list, src);
  return it->second;
}

template <class Map>
void SharedLists::keep(Map &kept, int64_t list,
                       typename Map::mapped_type value) {
  keptBytes_ += value.bytes();
  kept.emplace(list, std::move(value));
}

template <class Map> void SharedLists::dropConsumed(Map &kept, int64_t last) {
  for (auto it = kept.begin(); it != kept.end();) {
    if (lastCopy(it->first) <= last) {
      keptBytes_ -= it->second.bytes();
      it = kept.erase(it);
    } else {
      ++it;
    }
  }
}

CandidateSet SharedLists::runSet(const CandidateBuilder &builder,
                                 int64_t queryBegin, int64_t queryEnd,
                                 int64_t reserve) const {
  return builder.build(
      queryBegin, queryEnd, reserve,
      [this](int64_t query, Mode mode) { return positiveOnly(query, mode); });
}

void SharedLists::expand(const CandidateSet &block,
                         std::vector<Outcome> &outcomes, ActionTrace *actions) {
  if (!any() || block.groups.empty())
    return;
  const size_t D = actions ? static_cast<size_t>(actions->D) : 0;
  if (actions && actions->D != actionSteps_)
    fail("shared lists: actions of {} steps, the plan's {}", actions->D,
         actionSteps_);
  const size_t n = block.candidates.size();
  std::vector<Outcome> full(n);
  std::vector<int32_t> fullActions(actions ? n * D : 0);
  const int64_t first = listIndex(block.groups.front());
  size_t at = 0; // in the run's order
  auto take = [&](size_t to, size_t count) {
    if (at + count > outcomes.size())
      fail("shared lists: {} run outcomes for the block's {} candidates "
           "that ran",
           outcomes.size(), at + count);
    std::copy_n(outcomes.begin() + at, count, full.begin() + to);
    if (actions)
      std::copy_n(actions->actions.begin() + at * D, count * D,
                  fullActions.begin() + to * D);
    at += count;
  };
  for (size_t i = 0; i < block.groups.size(); ++i) {
    const CandidateGroup &g = block.groups[i];
    const int64_t list = listIndex(g);
    if (list != first + static_cast<int64_t>(i))
      fail("shared lists: the block's list {} is list {} of the pool, not {}",
           i, list, first + static_cast<int64_t>(i));
    const size_t begin = static_cast<size_t>(g.begin);
    const size_t size = static_cast<size_t>(g.end - g.begin);
    const int64_t src = source(list);
    if (src < 0) {
      take(begin, size);
      continue;
    }
    take(begin, 1); // the positive ran
    const size_t corruptions = size - 1;
    // The source: earlier in this block (already in place), or kept.
    const Kept *kept = nullptr;
    const CandidateGroup *inBlock = nullptr;
    size_t available;
    if (src >= first) {
      inBlock = &block.groups[static_cast<size_t>(src - first)];
      available = static_cast<size_t>(inBlock->end - inBlock->begin - 1);
    } else {
      kept = &keptFor(kept_, src, list);
      available = kept->outcomes.size();
    }
    if (available != corruptions)
      fail("shared lists: list {} has {} corruptions, its source {} has {}",
           list, corruptions, src, available);
    if (inBlock) {
      const size_t from = static_cast<size_t>(inBlock->begin) + 1;
      std::copy_n(full.begin() + from, corruptions, full.begin() + begin + 1);
      if (actions)
        std::copy_n(fullActions.begin() + from * D, corruptions * D,
                    fullActions.begin() + (begin + 1) * D);
    } else {
      for (size_t k = 0; k < corruptions; ++k)
        full[begin + 1 + k] = kept->outcomes[k].unpack();
      if (actions)
        std::copy_n(kept->actions.begin(), corruptions * D,
                    fullActions.begin() + (begin + 1) * D);
    }
  }
  if (at != outcomes.size())
    fail("shared lists: {} run outcomes, the block ran {}", outcomes.size(),
         at);
  // Keep this block's sources that later blocks take from; drop those
  // whose last copy was in this block or before.
  const int64_t last = first + static_cast<int64_t>(block.groups.size()) - 1;
  dropConsumed(kept_, last);
  for (const CandidateGroup &g : block.groups) {
    const int64_t list = listIndex(g);
    if (lastCopy(list) <= last)
      continue;
    Kept k;
    const size_t from = static_cast<size_t>(g.begin) + 1;
    const size_t end = static_cast<size_t>(g.end);
    k.outcomes.reserve(end - from);
    for (size_t i = from; i < end; ++i)
      k.outcomes.push_back(KeptOutcome::pack(full[i]));
    if (actions)
      k.actions.assign(fullActions.begin() + from * D,
                       fullActions.begin() + end * D);
    keep(kept_, list, std::move(k));
  }
  outcomes = std::move(full);
  if (actions)
    actions->actions = std::move(fullActions);
}

void SharedLists::tally(const CandidateSet &run,
                        const std::vector<Outcome> &outcomes,
                        std::vector<PairRanks> &pairs, OutcomeCounts &counts) {
  if (outcomes.size() != run.candidates.size())
    fail("shared lists: {} outcomes for the {} candidates that ran",
         outcomes.size(), run.candidates.size());
  if (run.groups.empty())
    return;
  const int64_t first = listIndex(run.groups.front());
  const int64_t last = first + static_cast<int64_t>(run.groups.size()) - 1;
  for (const CandidateGroup &g : run.groups) {
    const int64_t list = listIndex(g);
    PairRanks p;
    p.query = g.query;
    p.mode = g.mode;
    p.relation = run.queries.at(static_cast<size_t>(g.query)).r;
    const int64_t src = source(list);
    if (src < 0) { // ran whole: as rankPairs and OutcomeCounts::add
      p.rank = groupRanks(outcomes, g);
      p.listSize = g.end - g.begin;
      OutcomeCounts own;
      for (int64_t i = g.begin; i < g.end; ++i)
        own.add(outcomes[static_cast<size_t>(i)]);
      counts.add(own);
      pairs.push_back(p);
      if (lastCopy(list) < 0)
        continue;
      KeptTally t;
      for (int64_t i = g.begin + 1; i < g.end; ++i) {
        const Outcome &o = outcomes[static_cast<size_t>(i)];
        t.counts.add(o);
        if (o.status == ProofStatus::Proved)
          t.finite.push_back(o.score());
      }
      std::sort(t.finite.begin(), t.finite.end());
      keep(keptTallies_, list, std::move(t));
      continue;
    }
    const KeptTally &t = keptFor(keptTallies_, src, list);
    if (g.end - g.begin != 1)
      fail("shared lists: list {} ran {} candidates, not its positive alone",
           list, g.end - g.begin);
    const Outcome &positive = outcomes[static_cast<size_t>(g.begin)];
    const double s = positive.score();
    // groupRanks' counts over the source's corruptions: the finite scores
    // by binary search, every other score -inf (greater than nothing, at
    // least s only when s is -inf).
    const int64_t n = t.counts.candidates;
    const int64_t finite = static_cast<int64_t>(t.finite.size());
    const int64_t greater =
        t.finite.end() - std::upper_bound(t.finite.begin(), t.finite.end(), s);
    int64_t greaterOrEqual =
        t.finite.end() - std::lower_bound(t.finite.begin(), t.finite.end(), s);
    if (s == -std::numeric_limits<double>::infinity())
      greaterOrEqual += n - finite;
    const double optimistic = 1.0 + static_cast<double>(greater);
    const double pessimistic = 1.0 + static_cast<double>(greaterOrEqual);
    p.rank = {optimistic, pessimistic, (optimistic + pessimistic) / 2.0};
    p.listSize = 1 + n;
    OutcomeCounts own;
    own.add(positive);
    own.add(t.counts);
    counts.add(own);
    pairs.push_back(p);
  }
  dropConsumed(keptTallies_, last);
}

} // namespace proofc
