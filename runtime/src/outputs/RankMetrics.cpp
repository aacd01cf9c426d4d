//===- RankMetrics.cpp - Rank-based metrics in the PyKEEN sense -----------===//
//
// Definitions (PyKEEN's, with spec §6's scores: logp when PROVED, else -inf):
//   optimistic  = 1 + #{corruptions scoring > the positive}
//   pessimistic = 1 + #{corruptions scoring >= the positive}
//   realistic   = (optimistic + pessimistic) / 2   (spec §6's rank)
//   MR = mean rank, MRR = mean of 1/rank, Hits@k = fraction with rank <= k,
//   AMRI = 1 - (MR - 1) / (E[MR] - 1), E[MR] = mean over pairs of
//          (list size + 1) / 2 (the mean rank of a random scorer).
// The bootstrap resamples queries (each brings its head and tail pairs) with
// replacement, as many as there are, and takes the 2.5th and 97.5th
// percentiles (linear interpolation between order statistics, numpy's
// default) of each metric over the resamples.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/RankMetrics.h"

#include "outputs/PykeenMetrics.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace proofc {

const char *rankTypeName(RankType type) {
  switch (type) {
  case RankType::Optimistic:
    return "optimistic";
  case RankType::Pessimistic:
    return "pessimistic";
  case RankType::Realistic:
    return "realistic";
  }
  return "?";
}

const char *sideName(Side side) {
  switch (side) {
  case Side::Head:
    return "head";
  case Side::Tail:
    return "tail";
  case Side::Both:
    return "both";
  }
  return "?";
}

std::array<double, 3> groupRanks(const std::vector<Outcome> &outcomes,
                                 const CandidateGroup &group) {
  if (group.begin < 0 || group.begin >= group.end ||
      group.end > static_cast<int64_t>(outcomes.size()))
    fail("candidate group [{}, {}) of query {} ({}) is outside the {} "
         "outcomes",
         group.begin, group.end, group.query, modeName(group.mode),
         outcomes.size());
  const double positive = outcomes[group.begin].score();
  int64_t greater = 0, greaterOrEqual = 0;
  for (int64_t i = group.begin + 1; i < group.end; ++i) {
    const double s = outcomes[i].score();
    greater += s > positive;
    greaterOrEqual += s >= positive;
  }
  const double optimistic = 1.0 + static_cast<double>(greater);
  const double pessimistic = 1.0 + static_cast<double>(greaterOrEqual);
  return {optimistic, pessimistic, (optimistic + pessimistic) / 2.0};
}

namespace {

/// One pair's ranks, for a group indexing `outcomes`.
PairRanks pairRanks(const std::vector<Outcome> &outcomes,
                    const CandidateGroup &g, int32_t relation) {
  PairRanks p;
  p.rank = groupRanks(outcomes, g);
  p.query = g.query;
  p.mode = g.mode;
  p.relation = relation;
  p.listSize = g.end - g.begin;
  return p;
}

} // namespace

std::vector<PairRanks> rankPairs(const CandidateSet &set,
                                 const std::vector<Outcome> &outcomes) {
  if (outcomes.size() != set.candidates.size())
    fail("{} outcomes for {} candidates", outcomes.size(),
         set.candidates.size());
  std::vector<PairRanks> pairs;
  pairs.reserve(set.groups.size());
  for (const CandidateGroup &g : set.groups)
    pairs.push_back(pairRanks(outcomes, g, set.queries.at(g.query).r));
  return pairs;
}

std::vector<PairRanks> rankPairs(const CandidateLayout &layout,
                                 const QueryRange &range,
                                 const std::vector<Outcome> &outcomes) {
  if (static_cast<int64_t>(outcomes.size()) != range.candidates())
    fail("{} outcomes for the {} candidates of queries [{}, {})",
         outcomes.size(), range.candidates(), range.queryBegin, range.queryEnd);
  std::vector<PairRanks> pairs;
  pairs.reserve(static_cast<size_t>(2 * range.queries()));
  for (int64_t q = range.queryBegin; q < range.queryEnd; ++q)
    for (Mode mode : {Mode::Head, Mode::Tail}) {
      const size_t list = static_cast<size_t>(2 * q + static_cast<int>(mode));
      const CandidateGroup g{static_cast<int32_t>(q), mode,
                             layout.groupBegin.at(list) - range.candidateBegin,
                             layout.groupBegin.at(list + 1) -
                                 range.candidateBegin};
      pairs.push_back(
          pairRanks(outcomes, g, layout.queries.at(static_cast<size_t>(q)).r));
    }
  return pairs;
}

namespace {

bool onSide(const PairRanks &p, Side side) {
  return side == Side::Both || (side == Side::Head) == (p.mode == Mode::Head);
}

/// The 2.5th and 97.5th percentiles of `values` (sorted in place).
Interval percentileInterval(std::vector<double> &values) {
  if (values.empty())
    return {};
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] +
           (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  return {at(0.025), at(0.975)};
}

/// Collects one metric of many resampled summaries, then its interval.
struct IntervalBuilder {
  std::vector<double> meanRank, mrr, amri;
  std::vector<std::vector<double>> hits;

  void add(const RankSummary &s) {
    hits.resize(s.hits.size());
    if (s.meanRank)
      meanRank.push_back(*s.meanRank);
    if (s.mrr)
      mrr.push_back(*s.mrr);
    if (s.amri)
      amri.push_back(*s.amri);
    for (size_t k = 0; k < s.hits.size(); ++k)
      if (s.hits[k])
        hits[k].push_back(*s.hits[k]);
  }
  SummaryIntervals build(size_t hitCount) {
    SummaryIntervals out;
    out.meanRank = percentileInterval(meanRank);
    out.mrr = percentileInterval(mrr);
    out.amri = percentileInterval(amri);
    hits.resize(hitCount);
    for (std::vector<double> &h : hits)
      out.hits.push_back(percentileInterval(h));
    return out;
  }
};

SideSummaries summarizeAll(const std::vector<const PairRanks *> &pairs,
                           const std::vector<int64_t> &hits) {
  SideSummaries out;
  for (Side side : kSides)
    for (RankType type : kRankTypes)
      out[static_cast<int>(side)][static_cast<int>(type)] =
          summarize(pairs, side, type, hits);
  return out;
}

} // namespace

RankSummary summarize(const std::vector<const PairRanks *> &pairs, Side side,
                      RankType type, const std::vector<int64_t> &hits) {
  RankSummary s;
  s.hits.assign(hits.size(), std::nullopt);
  double rankSum = 0, reciprocalSum = 0, expectedSum = 0;
  std::vector<int64_t> hitCounts(hits.size(), 0);
  for (const PairRanks *p : pairs) {
    if (!onSide(*p, side))
      continue;
    const double rank = p->rank[static_cast<int>(type)];
    ++s.pairs;
    rankSum += rank;
    reciprocalSum += 1.0 / rank;
    expectedSum += (static_cast<double>(p->listSize) + 1.0) / 2.0;
    for (size_t k = 0; k < hits.size(); ++k)
      hitCounts[k] += rank <= static_cast<double>(hits[k]);
  }
  if (s.pairs == 0)
    return s;
  const double n = static_cast<double>(s.pairs);
  s.meanRank = rankSum / n;
  s.mrr = reciprocalSum / n;
  const double expected = expectedSum / n;
  if (expected > 1.0)
    s.amri = 1.0 - (*s.meanRank - 1.0) / (expected - 1.0);
  for (size_t k = 0; k < hits.size(); ++k)
    s.hits[k] = static_cast<double>(hitCounts[k]) / n;
  return s;
}

RankMetrics computeRankMetrics(const CandidateSet &set,
                               const std::vector<Outcome> &outcomes,
                               const RankMetricOptions &options) {
  return computeRankMetrics(rankPairs(set, outcomes), options);
}

RankMetrics computeRankMetrics(const std::vector<PairRanks> &pairs,
                               const RankMetricOptions &options) {
  for (int64_t k : options.hits)
    if (k < 1)
      fail("--hits: {} is not a positive rank", k);
  if (options.bootstrapSamples < 0)
    fail("--bootstrap: {} resamples (expected 0 or more)",
         options.bootstrapSamples);
  RankMetrics m;
  m.options = options;
  std::vector<const PairRanks *> all;
  all.reserve(pairs.size());
  for (const PairRanks &p : pairs)
    all.push_back(&p);
  m.overall = summarizeAll(all, options.hits);
  m.pykeen = pykeenFlatMetrics(pairs, options.hits);

  if (options.perRelation) {
    std::map<int32_t, std::vector<const PairRanks *>> byRelation;
    for (const PairRanks &p : pairs)
      byRelation[p.relation].push_back(&p);
    for (const auto &[relation, list] : byRelation)
      m.perRelation[relation] = summarizeAll(list, options.hits);
  }

  if (options.bootstrapSamples > 0) {
    // Pairs are query-major (groups are), so a query's pairs are one run.
    std::vector<std::pair<size_t, size_t>> queryRuns;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (queryRuns.empty() ||
          pairs[queryRuns.back().first].query != pairs[i].query)
        queryRuns.push_back({i, i});
      queryRuns.back().second = i + 1;
    }
    m.bootstrapQueries = static_cast<int64_t>(queryRuns.size());
    std::array<std::array<IntervalBuilder, 3>, 3> builders;
    SplitMix64 rng(options.bootstrapSeed);
    std::vector<const PairRanks *> sample;
    const uint64_t q = queryRuns.size();
    for (int64_t b = 0; b < options.bootstrapSamples && q > 0; ++b) {
      sample.clear();
      for (uint64_t i = 0; i < q; ++i) {
        const auto &[first, last] = queryRuns[rng.next() % q];
        for (size_t j = first; j < last; ++j)
          sample.push_back(&pairs[j]);
      }
      const SideSummaries s = summarizeAll(sample, options.hits);
      for (int side = 0; side < 3; ++side)
        for (int type = 0; type < 3; ++type)
          builders[side][type].add(s[side][type]);
    }
    for (int side = 0; side < 3; ++side)
      for (int type = 0; type < 3; ++type)
        m.intervals[side][type] =
            builders[side][type].build(options.hits.size());
  }
  return m;
}

std::vector<int64_t> normalizeHits(std::vector<int64_t> hits,
                                   const std::string &what) {
  for (int64_t k : hits)
    if (k < 1)
      fail("{}: {} is not a positive integer (expected a list such as "
           "1,3,10)",
           what, k);
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  return hits;
}

} // namespace proofc
