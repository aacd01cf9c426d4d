//===- SharedLists.cpp - Lists of the same corruptions, run once ----------===//
#include "session/SharedLists.h"

#include "data/MemoryBudget.h"
#include "support/Fail.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace proofc {

uint64_t SharedLists::defaultKeepBytes() { return availableMemoryBytes() / 4; }

namespace {

/// groupRanks' ranks of a positive of score `s` among the corruptions `t`
/// tallies: the finite scores by binary search, every other score -inf
/// (greater than nothing, at least s only when s is -inf).
std::array<double, 3> rankAgainst(const SharedTally &t, double s) {
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
  return {optimistic, pessimistic, (optimistic + pessimistic) / 2.0};
}

int64_t listKey(const CandidateBuilder &builder, int64_t list) {
  return builder.corruptionsKey(list / 2, list % 2 ? Mode::Tail : Mode::Head);
}

} // namespace

ShardSharing SharedLists::acrossShards(const CandidateBuilder &builder,
                                       int64_t shardCount) {
  std::vector<QueryRange> shards;
  for (int64_t r = 0; r < shardCount; ++r)
    shards.push_back(shardRange(builder.layout(), r, shardCount));
  return acrossRanges(builder, shards, Owner::LeastLoaded);
}

ShardSharing SharedLists::acrossRanges(const CandidateBuilder &builder,
                                       const std::vector<QueryRange> &ranges,
                                       Owner policy) {
  ShardSharing out;
  const int64_t shardCount = static_cast<int64_t>(ranges.size());
  out.shardCount = shardCount;
  const CandidateLayout &layout = builder.layout();
  if (shardCount < 2)
    return out;
  // Each key's shards, and each shard's work with its own keys shared
  // within it: its candidates less the corruptions of every list after the
  // first of a key (the keep bound aside: it rarely binds).
  struct Seen {
    int32_t lastShard = -1;
    int64_t corruptions = 0;
    std::vector<int32_t> shards;
  };
  std::unordered_map<int64_t, Seen> seen;
  std::vector<int64_t> load(static_cast<size_t>(shardCount), 0);
  for (int64_t r = 0; r < shardCount; ++r) {
    const QueryRange &shard = ranges[static_cast<size_t>(r)];
    if (r > 0 && shard.queryBegin < ranges[static_cast<size_t>(r - 1)].queryEnd)
      fail("shared lists: range [{}, {}) overlaps or precedes the one before "
           "it",
           shard.queryBegin, shard.queryEnd);
    load[static_cast<size_t>(r)] = shard.candidates();
    for (int64_t list = 2 * shard.queryBegin; list < 2 * shard.queryEnd;
         ++list) {
      const int64_t k = listKey(builder, list);
      if (k < 0)
        continue;
      Seen &s = seen[k];
      const int64_t corruptions = layout.listSize(list) - 1;
      if (s.lastShard == static_cast<int32_t>(r)) {
        load[static_cast<size_t>(r)] -= corruptions; // a copy within r
        continue;
      }
      s.lastShard = static_cast<int32_t>(r);
      s.corruptions = corruptions;
      s.shards.push_back(static_cast<int32_t>(r));
    }
  }
  // The keys in several shards: every holder runs the key's positives only
  // until the key is given to the least loaded of them.
  std::vector<std::pair<int64_t, int64_t>> spanning; // (corruptions, key)
  for (const auto &[k, s] : seen)
    if (s.shards.size() > 1) {
      spanning.emplace_back(s.corruptions, k);
      for (int32_t r : s.shards)
        load[static_cast<size_t>(r)] -= s.corruptions;
    }
  std::sort(spanning.begin(), spanning.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto &[corruptions, k] : spanning) {
    std::vector<int32_t> &holders = seen.at(k).shards;
    int32_t owner = holders.front();
    if (policy == Owner::LeastLoaded)
      for (int32_t r : holders)
        if (load[static_cast<size_t>(r)] < load[static_cast<size_t>(owner)])
          owner = r;
    load[static_cast<size_t>(owner)] += corruptions;
    out.keys.emplace(k, ShardSharing::Key{owner, std::move(holders)});
  }
  return out;
}

SharedLists::SharedLists(const CandidateBuilder &builder,
                         const QueryRange &range, bool enabled,
                         int32_t actionSteps, uint64_t keepBytes,
                         const ShardSharing *across, int32_t shard)
    : firstList_(2 * range.queryBegin), across_(across), shard_(shard),
      actionSteps_(actionSteps) {
  const CandidateLayout &layout = builder.layout();
  runLayout_ = layout;
  if (!enabled || range.queries() == 0)
    return;
  const int64_t lists = 2 * range.queries();
  std::vector<int64_t> &key = key_;
  key.resize(static_cast<size_t>(lists));
  std::unordered_map<int64_t, int64_t> lastOf; // key -> its last list
  for (int64_t l = 0; l < lists; ++l) {
    const int64_t list = firstList_ + l;
    key[static_cast<size_t>(l)] = listKey(builder, list);
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
    const ShardSharing::Key *spans = nullptr;
    if (across)
      if (auto it = across->keys.find(k); it != across->keys.end())
        spans = &it->second;
    if (spans && spans->owner != shard) { // another shard runs them
      source_[static_cast<size_t>(l)] = kRemote;
      remoteSize_[list] = layout.listSize(list);
      ++copies_;
      shared_ += layout.listSize(list) - 1;
      continue;
    }
    if (auto it = current.find(k); it != current.end()) {
      source_[static_cast<size_t>(l)] = it->second;
      lastCopy_[static_cast<size_t>(it->second - firstList_)] = list;
      ++copies_;
      shared_ += layout.listSize(list) - 1;
      continue;
    }
    const int64_t last = lastOf.at(k);
    if (spans) {
      // This shard owns the key and this is its first list here (a later
      // one found it in `current`): it runs them and exports its tally (a
      // tally: not counted against the bound) to the other shards, and any
      // later list of the range takes them.
      exported_.insert(list);
      if (last != list)
        current[k] = list;
      continue;
    }
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

bool SharedLists::copies(int64_t list) const { return source(list) != -1; }

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
    if (src == kRemote)
      fail("shared lists: list {} takes another shard's corruptions, which "
           "only a tallying call can",
           list);
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
    if (src != -1 && g.end - g.begin != 1) // a copy, here or remote
      fail("shared lists: list {} ran {} candidates, not its positive alone",
           list, g.end - g.begin);
    if (src == kRemote) { // ranked when its owner's tally has come
      const Outcome &positive = outcomes[static_cast<size_t>(g.begin)];
      p.listSize = remoteSize_.at(list);
      counts.add(positive);
      cross_.pending.push_back({list,
                                key_[static_cast<size_t>(list - firstList_)],
                                p.listSize, positive.score()});
      pairs.push_back(p);
      continue;
    }
    if (src < 0) { // ran whole: as rankPairs and OutcomeCounts::add
      p.rank = groupRanks(outcomes, g);
      p.listSize = g.end - g.begin;
      OutcomeCounts own;
      for (int64_t i = g.begin; i < g.end; ++i)
        own.add(outcomes[static_cast<size_t>(i)]);
      counts.add(own);
      pairs.push_back(p);
      const bool exported = exported_.count(list) > 0;
      if (lastCopy(list) < 0 && !exported)
        continue;
      KeptTally t;
      for (int64_t i = g.begin + 1; i < g.end; ++i) {
        const Outcome &o = outcomes[static_cast<size_t>(i)];
        t.counts.add(o);
        if (o.status == ProofStatus::Proved)
          t.finite.push_back(o.score());
      }
      std::sort(t.finite.begin(), t.finite.end());
      if (exported) {
        t.key = key_[static_cast<size_t>(list - firstList_)];
        std::vector<int32_t> to;
        for (int32_t r : across_->keys.at(t.key).holders)
          if (r != shard_)
            to.push_back(r);
        // A copy only when a later list of this range takes it too.
        cross_.exports.push_back(
            {lastCopy(list) >= 0 ? t : std::move(t), std::move(to)});
      }
      if (lastCopy(list) >= 0)
        keep(keptTallies_, list, std::move(t));
      continue;
    }
    const KeptTally &t = keptFor(keptTallies_, src, list);
    const Outcome &positive = outcomes[static_cast<size_t>(g.begin)];
    p.rank = rankAgainst(t, positive.score());
    p.listSize = 1 + t.counts.candidates;
    OutcomeCounts own;
    own.add(positive);
    own.add(t.counts);
    counts.add(own);
    pairs.push_back(p);
  }
  dropConsumed(keptTallies_, last);
}

void SharedLists::resolveCrossShard(const CrossShardTallies &pending,
                                    std::vector<SharedTally> imported,
                                    int64_t firstList,
                                    std::vector<PairRanks> &pairs,
                                    OutcomeCounts &counts) {
  std::unordered_map<int64_t, SharedTally> byKey;
  for (SharedTally &t : imported) {
    const int64_t key = t.key;
    if (!byKey.emplace(key, std::move(t)).second)
      fail("shared lists: two tallies of key {} came from other shards", key);
  }
  resolveCrossShard(pending, byKey, firstList, pairs, counts);
}

void SharedLists::resolveCrossShard(
    const CrossShardTallies &pending,
    const std::unordered_map<int64_t, SharedTally> &byKey, int64_t firstList,
    std::vector<PairRanks> &pairs, OutcomeCounts &counts) {
  for (const CrossShardTallies::Pending &copy : pending.pending) {
    const int64_t at = copy.list - firstList;
    if (at < 0 || at >= static_cast<int64_t>(pairs.size()))
      fail("shared lists: list {} is not one of the range's {} lists from "
           "list {}",
           copy.list, pairs.size(), firstList);
    auto it = byKey.find(copy.key);
    if (it == byKey.end())
      fail("shared lists: list {} takes key {}'s corruptions from another "
           "shard, which sent no tally of it",
           copy.list, copy.key);
    const SharedTally &t = it->second;
    if (t.counts.candidates != copy.listSize - 1 ||
        static_cast<int64_t>(t.finite.size()) > t.counts.proved)
      fail("shared lists: key {}'s tally from another shard counts {} "
           "corruptions ({} finite scores, {} proved); list {} has {}",
           copy.key, t.counts.candidates, t.finite.size(), t.counts.proved,
           copy.list, copy.listSize - 1);
    PairRanks &p = pairs[static_cast<size_t>(at)];
    p.rank = rankAgainst(t, copy.score);
    counts.add(t.counts);
  }
}

namespace {

template <class T> void put(std::string &out, const T &value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

} // namespace

std::vector<std::string>
SharedLists::bytesForShards(const CrossShardTallies &cross,
                            int64_t shardCount) {
  std::vector<std::vector<const SharedTally *>> to(
      static_cast<size_t>(shardCount));
  for (const CrossShardTallies::Export &e : cross.exports)
    for (int32_t r : e.to) {
      if (r < 0 || r >= shardCount)
        fail("shared lists: key {}'s tally is owed to shard {} of {}",
             e.tally.key, r, shardCount);
      to[static_cast<size_t>(r)].push_back(&e.tally);
    }
  std::vector<std::string> out(to.size());
  for (size_t r = 0; r < to.size(); ++r) {
    if (to[r].empty())
      continue; // nothing: no bytes
    put(out[r], static_cast<int64_t>(to[r].size()));
    for (const SharedTally *t : to[r]) {
      const OutcomeCounts &c = t->counts;
      for (int64_t v : {t->key, c.candidates, c.proved, c.failed, c.truncated,
                        c.depthSum, static_cast<int64_t>(t->finite.size())})
        put(out[r], v);
      if (!t->finite.empty())
        out[r].append(reinterpret_cast<const char *>(t->finite.data()),
                      t->finite.size() * sizeof(double));
    }
  }
  return out;
}

std::vector<SharedTally> SharedLists::parseTallies(std::string_view bytes,
                                                   const std::string &what) {
  size_t at = 0;
  auto take = [&](void *to, size_t size) {
    if (bytes.size() - at < size)
      fail("{}: {} bytes end inside a tally (at byte {})", what, bytes.size(),
           at);
    if (size > 0) // an empty vector's data() may be null
      std::memcpy(to, bytes.data() + at, size);
    at += size;
  };
  auto count = [&](const char *name) {
    int64_t v = 0;
    take(&v, sizeof v);
    if (v < 0)
      fail("{}: a negative {} ({}) at byte {}", what, name, v, at - sizeof v);
    return v;
  };
  std::vector<SharedTally> out;
  if (bytes.empty())
    return out; // nothing was owed
  const int64_t n = count("tally count");
  for (int64_t i = 0; i < n; ++i) {
    SharedTally t;
    t.key = count("key");
    OutcomeCounts &c = t.counts;
    c.candidates = count("candidate count");
    c.proved = count("proved count");
    c.failed = count("failed count");
    c.truncated = count("truncated count");
    c.depthSum = count("depth sum");
    const int64_t finite = count("score count");
    if (finite > c.proved || c.proved > c.candidates ||
        c.failed > c.candidates - c.proved ||
        c.truncated != c.candidates - c.proved - c.failed)
      fail("{}: key {}'s tally counts {} candidates as {} proved, {} failed, "
           "{} truncated, with {} finite scores",
           what, t.key, c.candidates, c.proved, c.failed, c.truncated, finite);
    if (static_cast<uint64_t>(finite) > (bytes.size() - at) / sizeof(double))
      fail("{}: key {}'s {} scores pass the end of the {} bytes", what, t.key,
           finite, bytes.size());
    t.finite.resize(static_cast<size_t>(finite));
    take(t.finite.data(), t.finite.size() * sizeof(double));
    if (!std::is_sorted(t.finite.begin(), t.finite.end()))
      fail("{}: key {}'s scores are not ascending", what, t.key);
    out.push_back(std::move(t));
  }
  if (at != bytes.size())
    fail("{}: {} bytes after the last tally", what, bytes.size() - at);
  return out;
}

} // namespace proofc
