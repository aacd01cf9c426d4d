//===- MetricsTest.cpp - Realistic ranks, MRR, Hits@k, counts -------------===//
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Evaluation.h"

#include <gtest/gtest.h>

using namespace proofc;

namespace {

Outcome proved(float logp, int32_t depth = 1) {
  return {ProofStatus::Proved, depth, logp};
}
Outcome failed(int32_t depth = 1) { return {ProofStatus::Failed, depth, -3.f}; }
Outcome truncated(int32_t depth = 20) {
  return {ProofStatus::Truncated, depth, -9.f};
}

CandidateGroup group(int64_t begin, int64_t end, Mode mode = Mode::Head) {
  return {0, mode, begin, end};
}

/// A candidate set whose groups have the given sizes, alternating head/tail.
CandidateSet setWithGroups(std::initializer_list<int64_t> sizes) {
  CandidateSet set;
  int32_t index = 0;
  for (int64_t size : sizes) {
    Mode mode = index % 2 == 0 ? Mode::Head : Mode::Tail;
    CandidateGroup g{index / 2, mode,
                     static_cast<int64_t>(set.candidates.size()), 0};
    for (int64_t i = 0; i < size; ++i)
      set.candidates.push_back({Triple{0, 0, 0}, index / 2, mode, 0});
    g.end = static_cast<int64_t>(set.candidates.size());
    set.groups.push_back(g);
    if (mode == Mode::Head)
      set.queries.push_back(Triple{0, 0, 0}); // the groups' query
    ++index;
  }
  return set;
}

} // namespace

TEST(Metrics, StatusNames) {
  EXPECT_STREQ(statusName(ProofStatus::Proved), "proved");
  EXPECT_STREQ(statusName(ProofStatus::Failed), "failed");
  EXPECT_STREQ(statusName(ProofStatus::Truncated), "truncated");
}

TEST(Metrics, ScoreIsLogpOnlyWhenProved) {
  EXPECT_EQ(proved(-0.25f).score(), -0.25);
  EXPECT_EQ(failed().score(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(truncated().score(), -std::numeric_limits<double>::infinity());
}

TEST(Metrics, RankCountsGreaterAndEqualScores) {
  // Positive -1; one better, one equal, one worse, one unproved.
  std::vector<Outcome> o = {proved(-1), proved(-0.5f), proved(-1), proved(-2),
                            failed()};
  EXPECT_EQ(realisticRank(o, group(0, 5)), 2.5); // (2 + 3) / 2
  // A group inside a larger vector only looks at its own range.
  std::vector<Outcome> shifted = {proved(0), proved(-1), proved(-2)};
  EXPECT_EQ(realisticRank(shifted, group(1, 3)), 1.0);
}

TEST(Metrics, UnprovedCandidatesTieAtMinusInfinity) {
  // Unproved positive among 4 unproved corruptions: ranks 1..5, mean 3.
  std::vector<Outcome> o = {failed(), failed(), truncated(), failed(),
                            truncated()};
  EXPECT_EQ(realisticRank(o, group(0, 5)), 3.0);
  // Any proved corruption beats an unproved positive.
  o[2] = proved(-50);
  EXPECT_EQ(realisticRank(o, group(0, 5)), 3.5); // (2 + 5) / 2
  // A proved positive beats every unproved corruption.
  o[0] = proved(-60);
  EXPECT_EQ(realisticRank(o, group(0, 5)), 2.0);
  o[0] = proved(-40);
  EXPECT_EQ(realisticRank(o, group(0, 5)), 1.0);
  // A lone positive ranks first whatever its status.
  EXPECT_EQ(realisticRank({failed()}, group(0, 1)), 1.0);
}

TEST(Metrics, EqualLogpTies) {
  std::vector<Outcome> o = {proved(-0.75f), proved(-0.75f), proved(-0.75f),
                            proved(-0.75f)};
  EXPECT_EQ(realisticRank(o, group(0, 4)), 2.5); // (1 + 4) / 2
}

TEST(Metrics, RankRejectsGroupsOutsideTheOutcomes) {
  std::vector<Outcome> o(3);
  EXPECT_THROW(realisticRank(o, group(2, 4)), Error);
  EXPECT_THROW(realisticRank(o, group(1, 1)), Error);
  EXPECT_THROW(realisticRank(o, group(-1, 2)), Error);
}

TEST(Metrics, ComputesHeadTailBothAndCounts) {
  CandidateSet set = setWithGroups({3, 3, 4, 2});
  std::vector<Outcome> o = {
      // q0 head: positive best -> rank 1
      proved(-0.1f, 2), failed(3), truncated(20),
      // q0 tail: positive unproved, one proved corruption -> (2 + 3) / 2
      failed(4), proved(-5, 5), failed(1),
      // q1 head: positive ties one, below one -> (2 + 3) / 2 ... see below
      proved(-1, 2), proved(-0.5f, 2), proved(-1, 3), proved(-4, 1),
      // q1 tail: positive below one -> rank 2
      proved(-2, 6), proved(-1, 6)};
  Metrics m = computeMetrics(set, o);
  // head ranks: 1, 2.5; tail ranks: 2.5, 2
  EXPECT_EQ(m.head.pairs, 2);
  EXPECT_EQ(m.tail.pairs, 2);
  EXPECT_EQ(m.both.pairs, 4);
  EXPECT_DOUBLE_EQ(m.head.mrr, (1.0 + 1 / 2.5) / 2);
  EXPECT_DOUBLE_EQ(m.tail.mrr, (1 / 2.5 + 1 / 2.0) / 2);
  EXPECT_DOUBLE_EQ(m.both.mrr, (1.0 + 1 / 2.5 + 1 / 2.5 + 1 / 2.0) / 4);
  EXPECT_DOUBLE_EQ(m.head.hits1, 0.5);
  EXPECT_DOUBLE_EQ(m.tail.hits1, 0.0);
  EXPECT_DOUBLE_EQ(m.both.hits1, 0.25);
  EXPECT_DOUBLE_EQ(m.both.hits3, 1.0);
  EXPECT_DOUBLE_EQ(m.both.hits10, 1.0);
  EXPECT_EQ(m.candidates, 12);
  EXPECT_EQ(m.proved, 8);
  EXPECT_EQ(m.failed, 3);
  EXPECT_EQ(m.truncated, 1);
  EXPECT_DOUBLE_EQ(m.meanDepth,
                   (2 + 3 + 20 + 4 + 5 + 1 + 2 + 2 + 3 + 1 + 6 + 6) / 12.0);
}

TEST(Metrics, HitsUseTheRealisticRank) {
  // Tied ranks average: rank 4 misses Hits@3, rank 11 misses Hits@10.
  CandidateSet set = setWithGroups({5, 12});
  std::vector<Outcome> o(17, failed());
  o[0] = proved(-1);
  o[1] = o[2] = proved(-0.5f);
  o[3] = o[4] = proved(-1); // 2 greater, 2 equal: (3 + 5) / 2 = 4
  o[5] = proved(-1);
  for (int i = 6; i < 17; ++i)
    o[i] = proved(i < 15 ? -0.5f : -1.f); // 9 greater, 2 equal: (10 + 12) / 2
  Metrics m = computeMetrics(set, o);
  EXPECT_DOUBLE_EQ(m.head.mrr, 1 / 4.0);
  EXPECT_DOUBLE_EQ(m.head.hits3, 0.0);
  EXPECT_DOUBLE_EQ(m.head.hits10, 1.0);
  EXPECT_DOUBLE_EQ(m.tail.mrr, 1 / 11.0);
  EXPECT_DOUBLE_EQ(m.tail.hits10, 0.0);
}

TEST(Metrics, EmptySetAndSizeMismatch) {
  CandidateSet empty;
  Metrics m = computeMetrics(empty, {});
  EXPECT_EQ(m.both.pairs, 0);
  EXPECT_EQ(m.both.mrr, 0.0);
  EXPECT_EQ(m.meanDepth, 0.0);
  CandidateSet set = setWithGroups({2});
  try {
    computeMetrics(set, {failed()});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "1 outcomes for 2 candidates");
  }
}
