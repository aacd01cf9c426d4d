//===- RankMetricsTest.cpp - Optimistic/pessimistic/realistic metrics -----===//
//
// Every expected value below is worked out by hand from the rank lists in
// the comments (PyKEEN's definitions, RankMetrics.h).
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/RankMetrics.h"
#include "outputs/Report.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

using namespace proofc;

namespace rank_metrics_test {

Outcome proved(float logp) { return {ProofStatus::Proved, 1, logp}; }
Outcome failed() { return {ProofStatus::Failed, 1, -3.f}; }
Outcome truncated() { return {ProofStatus::Truncated, 20, -9.f}; }

/// Appends one (query, mode) group with `outcomes` (positive first).
void addGroup(CandidateSet &set, std::vector<Outcome> &all, int32_t query,
              Mode mode, std::vector<Outcome> outcomes) {
  CandidateGroup g{query, mode, static_cast<int64_t>(set.candidates.size()), 0};
  for (const Outcome &o : outcomes) {
    set.candidates.push_back({set.queries.at(query), query, mode, 0});
    all.push_back(o);
  }
  g.end = static_cast<int64_t>(set.candidates.size());
  set.groups.push_back(g);
}

// The four hand-made lists.
// ties: an unproved positive among unproved corruptions and one proved:
//   optimistic 1 + 1 = 2, pessimistic 1 + 4 = 5, realistic 3.5, 5 candidates.
std::vector<Outcome> tiesAtMinusInf() {
  return {failed(), failed(), truncated(), proved(-50), failed()};
}
// single: a lone positive: every rank 1, 1 candidate.
std::vector<Outcome> single() { return {failed()}; }
// positiveTies: -1 among -0.5 (greater), -1 (equal), -2, unproved:
//   optimistic 2, pessimistic 3, realistic 2.5, 5 candidates.
std::vector<Outcome> positiveTies() {
  return {proved(-1), proved(-0.5f), proved(-1), proved(-2), failed()};
}
// allTied: 4 candidates with the same logp: 1, 4, 2.5.
std::vector<Outcome> allTied() {
  return {proved(-0.75f), proved(-0.75f), proved(-0.75f), proved(-0.75f)};
}

/// q0 (relation 0): head = ties, tail = positiveTies;
/// q1 (relation 1): head = single, tail = allTied.
struct Fixture {
  CandidateSet set;
  std::vector<Outcome> outcomes;
  Fixture() {
    set.queries = {Triple{0, 0, 1}, Triple{1, 1, 2}};
    addGroup(set, outcomes, 0, Mode::Head, tiesAtMinusInf());
    addGroup(set, outcomes, 0, Mode::Tail, positiveTies());
    addGroup(set, outcomes, 1, Mode::Head, single());
    addGroup(set, outcomes, 1, Mode::Tail, allTied());
  }
};

const RankSummary &at(const SideSummaries &s, Side side, RankType type) {
  return s[static_cast<int>(side)][static_cast<int>(type)];
}

TEST(RankMetrics, GroupRanksOfTheHandMadeLists) {
  auto ranks = [](std::vector<Outcome> o) {
    return groupRanks(o, {0, Mode::Head, 0, static_cast<int64_t>(o.size())});
  };
  EXPECT_EQ(ranks(tiesAtMinusInf()), (std::array<double, 3>{2, 5, 3.5}));
  EXPECT_EQ(ranks(single()), (std::array<double, 3>{1, 1, 1}));
  EXPECT_EQ(ranks(positiveTies()), (std::array<double, 3>{2, 3, 2.5}));
  EXPECT_EQ(ranks(allTied()), (std::array<double, 3>{1, 4, 2.5}));
}

TEST(RankMetrics, HeadSideByRankType) {
  Fixture f;
  RankMetricOptions options;
  options.hits = {1, 3, 5};
  RankMetrics m = computeRankMetrics(f.set, f.outcomes, options);
  // Head ranks: ties (2, 5, 3.5; 5 candidates) and single (1, 1, 1; 1).
  // E[MR] = ((5 + 1) / 2 + (1 + 1) / 2) / 2 = 2.
  const RankSummary &o = at(m.overall, Side::Head, RankType::Optimistic);
  EXPECT_EQ(o.pairs, 2);
  EXPECT_DOUBLE_EQ(*o.meanRank, 1.5);
  EXPECT_DOUBLE_EQ(*o.mrr, (0.5 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(*o.amri, 1 - (1.5 - 1) / (2.0 - 1)); // 0.5
  EXPECT_DOUBLE_EQ(*o.hits[0], 0.5);                    // Hits@1
  EXPECT_DOUBLE_EQ(*o.hits[1], 1.0);                    // Hits@3
  const RankSummary &p = at(m.overall, Side::Head, RankType::Pessimistic);
  EXPECT_DOUBLE_EQ(*p.meanRank, 3.0);
  EXPECT_DOUBLE_EQ(*p.mrr, (0.2 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(*p.amri, -1.0);   // 1 - (3 - 1) / (2 - 1)
  EXPECT_DOUBLE_EQ(*p.hits[1], 0.5); // rank 5 misses Hits@3
  EXPECT_DOUBLE_EQ(*p.hits[2], 1.0); // ... and makes Hits@5
  const RankSummary &r = at(m.overall, Side::Head, RankType::Realistic);
  EXPECT_DOUBLE_EQ(*r.meanRank, 2.25);
  EXPECT_DOUBLE_EQ(*r.mrr, (1 / 3.5 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(*r.amri, -0.25);  // 1 - 1.25 / 1
  EXPECT_DOUBLE_EQ(*r.hits[1], 0.5); // 3.5 > 3
}

TEST(RankMetrics, TailAndBothSides) {
  Fixture f;
  RankMetrics m = computeRankMetrics(f.set, f.outcomes, {});
  // Tail: positiveTies (2, 3, 2.5; 5) and allTied (1, 4, 2.5; 4);
  // E[MR] = (3 + 2.5) / 2 = 2.75.
  const RankSummary &o = at(m.overall, Side::Tail, RankType::Optimistic);
  EXPECT_DOUBLE_EQ(*o.meanRank, 1.5);
  EXPECT_DOUBLE_EQ(*o.amri, 1 - 0.5 / 1.75);
  const RankSummary &r = at(m.overall, Side::Tail, RankType::Realistic);
  EXPECT_DOUBLE_EQ(*r.meanRank, 2.5);
  EXPECT_DOUBLE_EQ(*r.mrr, 0.4);
  EXPECT_DOUBLE_EQ(*r.hits[0], 0.0);
  EXPECT_DOUBLE_EQ(*r.hits[1], 1.0);
  // Both: the four realistic ranks 3.5, 2.5, 1, 2.5; E[MR] = (3+3+1+2.5)/4.
  const RankSummary &b = at(m.overall, Side::Both, RankType::Realistic);
  EXPECT_EQ(b.pairs, 4);
  EXPECT_DOUBLE_EQ(*b.meanRank, 9.5 / 4);
  EXPECT_DOUBLE_EQ(*b.mrr, (1 / 3.5 + 1 / 2.5 + 1 + 1 / 2.5) / 4);
  EXPECT_DOUBLE_EQ(*b.amri, 1 - (9.5 / 4 - 1) / (9.5 / 4 - 1));
  EXPECT_DOUBLE_EQ(*b.hits[0], 0.25);
  // The realistic side agrees with the spec §6 metrics of computeMetrics.
  std::vector<Outcome> outcomes = f.outcomes;
  Metrics legacy = computeMetrics(f.set, outcomes);
  EXPECT_DOUBLE_EQ(legacy.both.mrr, *b.mrr);
  EXPECT_DOUBLE_EQ(legacy.head.hits3,
                   *at(m.overall, Side::Head, RankType::Realistic).hits[1]);
}

TEST(RankMetrics, AllTiedIsARandomScorer) {
  CandidateSet set;
  set.queries = {Triple{0, 0, 1}};
  std::vector<Outcome> outcomes;
  addGroup(set, outcomes, 0, Mode::Head, allTied());
  RankMetrics m = computeRankMetrics(set, outcomes, {});
  // Ranks 1, 4, 2.5 against E[MR] = 2.5: AMRI 1, -1 and exactly 0.
  EXPECT_DOUBLE_EQ(*at(m.overall, Side::Head, RankType::Optimistic).amri, 1.0);
  EXPECT_DOUBLE_EQ(*at(m.overall, Side::Head, RankType::Pessimistic).amri,
                   -1.0);
  EXPECT_DOUBLE_EQ(*at(m.overall, Side::Head, RankType::Realistic).amri, 0.0);
}

TEST(RankMetrics, EmptyMetricsAreNullNotZero) {
  CandidateSet set;
  set.queries = {Triple{0, 0, 1}};
  std::vector<Outcome> outcomes;
  addGroup(set, outcomes, 0, Mode::Head, single());
  RankMetrics m = computeRankMetrics(set, outcomes, {});
  // No tail pairs: every tail metric is empty.
  const RankSummary &tail = at(m.overall, Side::Tail, RankType::Realistic);
  EXPECT_EQ(tail.pairs, 0);
  EXPECT_FALSE(tail.meanRank || tail.mrr || tail.amri || tail.hits[0]);
  // One candidate per list: E[MR] = 1, so AMRI is undefined (empty).
  const RankSummary &head = at(m.overall, Side::Head, RankType::Realistic);
  EXPECT_DOUBLE_EQ(*head.mrr, 1.0);
  EXPECT_FALSE(head.amri);
  nlohmann::json j = rankMetricsJson(m, {"r0"});
  EXPECT_TRUE(j["tail"]["realistic"]["mrr"].is_null());
  EXPECT_TRUE(j["tail"]["realistic"]["hits_at"]["10"].is_null());
  EXPECT_TRUE(j["head"]["realistic"]["amri"].is_null());
  EXPECT_EQ(j["head"]["realistic"]["mrr"], 1.0);
  nlohmann::json flat = pykeenKeyMap(m);
  EXPECT_TRUE(flat["tail.optimistic.inverse_harmonic_mean_rank"].is_null());
  EXPECT_EQ(flat["head.realistic.hits_at_10"], 1.0);
}

TEST(RankMetrics, PerRelation) {
  Fixture f;
  RankMetricOptions options;
  options.perRelation = true;
  RankMetrics m = computeRankMetrics(f.set, f.outcomes, options);
  ASSERT_EQ(m.perRelation.size(), 2u);
  // Relation 0: head = ties only, tail = positiveTies only.
  EXPECT_DOUBLE_EQ(
      *at(m.perRelation.at(0), Side::Head, RankType::Pessimistic).meanRank, 5);
  EXPECT_DOUBLE_EQ(
      *at(m.perRelation.at(0), Side::Tail, RankType::Realistic).mrr, 0.4);
  // Relation 1: head = single (AMRI undefined), both = single + allTied.
  EXPECT_FALSE(at(m.perRelation.at(1), Side::Head, RankType::Realistic).amri);
  EXPECT_DOUBLE_EQ(
      *at(m.perRelation.at(1), Side::Both, RankType::Optimistic).meanRank, 1);
  nlohmann::json j = rankMetricsJson(m, {"livesIn", "likes"});
  EXPECT_EQ(j["per_relation"]["livesIn"]["head"]["pessimistic"]["mean_rank"],
            5);
  EXPECT_TRUE(j["per_relation"].contains("likes"));
}

TEST(RankMetrics, BootstrapOfTwoQueriesHitsTheirValues) {
  // Query A: head rank 1 (MRR 1); query B: head rank 4 of an all-tied list
  // pessimistically. Resamples of two queries are AA, AB, BA, BB (each
  // >= 2.5 %), so the pessimistic MRR interval is exactly [1/4, 1].
  CandidateSet set;
  set.queries = {Triple{0, 0, 1}, Triple{1, 0, 2}};
  std::vector<Outcome> outcomes;
  addGroup(set, outcomes, 0, Mode::Head, single());
  addGroup(set, outcomes, 1, Mode::Head, allTied());
  RankMetricOptions options;
  options.bootstrapSamples = 2000;
  options.bootstrapSeed = 7;
  RankMetrics m = computeRankMetrics(set, outcomes, options);
  EXPECT_EQ(m.bootstrapQueries, 2);
  const SummaryIntervals &i =
      m.intervals[static_cast<int>(Side::Head)]
                 [static_cast<int>(RankType::Pessimistic)];
  EXPECT_DOUBLE_EQ(*i.mrr.low, 0.25);
  EXPECT_DOUBLE_EQ(*i.mrr.high, 1.0);
  EXPECT_DOUBLE_EQ(*i.meanRank.low, 1.0);
  EXPECT_DOUBLE_EQ(*i.meanRank.high, 4.0);
  // No tail pairs in any resample: empty bounds.
  const SummaryIntervals &t =
      m.intervals[static_cast<int>(Side::Tail)]
                 [static_cast<int>(RankType::Realistic)];
  EXPECT_FALSE(t.mrr.low || t.mrr.high);
}

TEST(RankMetrics, BootstrapIsDeterministicInItsSeed) {
  Fixture f;
  // Three queries make the percentiles depend on the draws.
  f.set.queries.push_back(Triple{2, 1, 0});
  addGroup(f.set, f.outcomes, 2, Mode::Head, positiveTies());
  RankMetricOptions options;
  options.bootstrapSamples = 50;
  options.bootstrapSeed = 1;
  nlohmann::json a =
      rankMetricsJson(computeRankMetrics(f.set, f.outcomes, options), {});
  nlohmann::json b =
      rankMetricsJson(computeRankMetrics(f.set, f.outcomes, options), {});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["bootstrap"]["samples"], 50);
  EXPECT_EQ(a["bootstrap"]["queries"], 3);
  bool anyDifferent = false;
  for (uint64_t seed = 2; seed < 12 && !anyDifferent; ++seed) {
    options.bootstrapSeed = seed;
    anyDifferent = rankMetricsJson(
                       computeRankMetrics(f.set, f.outcomes, options), {}) != a;
  }
  EXPECT_TRUE(anyDifferent) << "the seed changes nothing";
}

TEST(RankMetrics, PykeenKeysNameEverySideTypeAndMetric) {
  Fixture f;
  RankMetrics m = computeRankMetrics(f.set, f.outcomes, {});
  nlohmann::json flat = pykeenKeyMap(m);
  // PyKEEN's whole set (PykeenMetricsTest): 3 sides x 3 types x (12 base
  // metrics + Hits@k), 3 sides x the realistic rank's (7 adjusted and z
  // metrics + adjusted and z Hits@k), and the optimistic and pessimistic AMRI
  // of earlier reports.
  const size_t hits = m.options.hits.size();
  EXPECT_EQ(flat.size(), 3u * 3u * (12u + hits) + 3u * (7u + 2u * hits) + 6u);
  EXPECT_TRUE(flat.contains("both.realistic.hits_at_5"));
  EXPECT_DOUBLE_EQ(
      flat["both.realistic.inverse_harmonic_mean_rank"].get<double>(),
      *at(m.overall, Side::Both, RankType::Realistic).mrr);
  EXPECT_DOUBLE_EQ(flat["tail.optimistic.hits_at_10"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(flat["head.pessimistic.arithmetic_mean_rank"].get<double>(),
                   3.0);
  EXPECT_TRUE(
      flat.contains("both.optimistic.adjusted_arithmetic_mean_rank_index"));
}

TEST(RankMetrics, HitsListsAreSortedDeduplicatedAndPositive) {
  EXPECT_EQ(normalizeHits({10, 1, 3, 3}, "hits"),
            (std::vector<int64_t>{1, 3, 10}));
  try {
    normalizeHits({3, 0}, "hits");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "hits: 0 is not a positive integer (expected a list such as "
              "1,3,10)");
  }
}

// A streaming run, a shard or an MPI rank keeps the pairs' ranks and the
// counts of each block instead of the outcomes: tallied block by block (the
// groups split anywhere between pairs), the metrics and rank metrics must be
// the whole pool's, bit for bit.
TEST(RankMetrics, TalliedByBlocksEqualsTheWholePool) {
  Fixture f;
  RankMetricOptions options;
  options.perRelation = true;
  options.bootstrapSamples = 50;
  options.bootstrapSeed = 7;
  const Metrics whole = computeMetrics(f.set, f.outcomes);
  const RankMetrics wholeRank = computeRankMetrics(f.set, f.outcomes, options);
  // Blocks of groups {0}, {1, 2}, {3}, each renumbered to its own outcomes.
  std::vector<PairRanks> pairs;
  OutcomeCounts counts;
  for (auto [first, last] :
       {std::pair{0, 1}, std::pair{1, 3}, std::pair{3, 4}}) {
    CandidateSet block;
    block.queries = f.set.queries;
    const int64_t offset = f.set.groups[first].begin;
    for (int g = first; g < last; ++g) {
      CandidateGroup group = f.set.groups[g];
      group.begin -= offset;
      group.end -= offset;
      block.groups.push_back(group);
    }
    const int64_t end = f.set.groups[last - 1].end;
    block.candidates.assign(f.set.candidates.begin() + offset,
                            f.set.candidates.begin() + end);
    const std::vector<Outcome> outcomes(f.outcomes.begin() + offset,
                                        f.outcomes.begin() + end);
    for (const PairRanks &p : rankPairs(block, outcomes))
      pairs.push_back(p);
    OutcomeCounts blockCounts;
    blockCounts.add(outcomes);
    counts.add(blockCounts);
  }
  const Metrics tallied = computeMetrics(pairs, counts);
  EXPECT_EQ(tallied.both.mrr, whole.both.mrr);
  EXPECT_EQ(tallied.head.hits1, whole.head.hits1);
  EXPECT_EQ(tallied.tail.hits10, whole.tail.hits10);
  EXPECT_EQ(tallied.both.pairs, 4);
  EXPECT_EQ(tallied.candidates, 15);
  EXPECT_EQ(tallied.proved, whole.proved);
  EXPECT_EQ(tallied.failed, whole.failed);
  EXPECT_EQ(tallied.truncated, whole.truncated);
  EXPECT_EQ(tallied.meanDepth, whole.meanDepth);
  EXPECT_NE(tallied.meanDepth, 0.0);
  const RankMetrics talliedRank = computeRankMetrics(pairs, options);
  EXPECT_EQ(rankMetricsJson(talliedRank, {"r0", "r1"}).dump(),
            rankMetricsJson(wholeRank, {"r0", "r1"}).dump());
}

// A shard's, a checkpoint's or an MPI gather's ranks come from the layout's
// list sizes, not from built candidates: the same pairs, for any range.
TEST(RankMetrics, PairsFromTheLayoutEqualPairsFromTheCandidates) {
  Fixture f;
  const CandidateLayout layout = layoutOf(f.set);
  const std::vector<PairRanks> whole = rankPairs(f.set, f.outcomes);
  const QueryRange second{1, 2, layout.firstCandidateOf(1),
                          layout.firstCandidateOf(2)};
  const std::vector<Outcome> slice(f.outcomes.begin() + second.candidateBegin,
                                   f.outcomes.end());
  const std::vector<PairRanks> fromLayout[2] = {
      rankPairs(layout, QueryRange{0, 2, 0, layout.candidateCount()},
                f.outcomes),
      rankPairs(layout, second, slice)};
  ASSERT_EQ(fromLayout[0].size(), 4u);
  ASSERT_EQ(fromLayout[1].size(), 2u);
  for (size_t i = 0; i < 4; ++i) {
    const PairRanks &a = whole[i];
    const PairRanks &b = i < 2 ? fromLayout[0][i] : fromLayout[1][i - 2];
    for (const PairRanks *p : {&fromLayout[0][i], &b}) {
      EXPECT_EQ(p->query, a.query);
      EXPECT_EQ(p->mode, a.mode);
      EXPECT_EQ(p->relation, a.relation);
      EXPECT_EQ(p->listSize, a.listSize);
      EXPECT_EQ(p->rank, a.rank);
    }
  }
  EXPECT_EQ(fromLayout[1][1].rank[2], 2.5); // q1 tail: allTied, realistic
  EXPECT_THROW(rankPairs(layout, second, f.outcomes), Error);
}

} // namespace rank_metrics_test
