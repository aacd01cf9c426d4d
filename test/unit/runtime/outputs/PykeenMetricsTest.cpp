//===- PykeenMetricsTest.cpp - PyKEEN's full rank-based set, by hand ------===//
//
// Every expected value is worked out by hand in the comments from the
// definitions of pykeen.metrics.ranking (PykeenMetrics.cpp's banner): the
// expectations and variances of the adjusted indices and z-scores are the
// closed forms for ranks uniform on 1..N, written out term by term here, not
// computed by the code under test.
//
//===----------------------------------------------------------------------===//
#include "outputs/PykeenMetrics.h"
#include "outputs/Report.h"
#include "proofc/runtime/RankMetrics.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace proofc;

namespace {

double value(const PykeenValues &values, const std::string &key) {
  auto it = values.find(key);
  EXPECT_NE(it, values.end()) << "no key " << key;
  if (it == values.end() || !it->second) {
    ADD_FAILURE() << key << " is empty";
    return std::nan("");
  }
  return *it->second;
}

void expectNear(const PykeenValues &values, const std::string &key,
                double expected) {
  EXPECT_NEAR(value(values, key), expected, 1e-12 * std::fabs(expected) + 1e-15)
      << key;
}

void expectEmpty(const PykeenValues &values, const std::string &key) {
  auto it = values.find(key);
  ASSERT_NE(it, values.end()) << "no key " << key;
  EXPECT_FALSE(it->second.has_value()) << key;
}

// Ranks {1, 1, 2} in lists of N = {2, 3, 4} candidates (m = 3).
PykeenValues example(bool realistic) {
  return pykeenValues({1, 1, 2}, {2, 3, 4}, {1, 3, 5}, realistic);
}

} // namespace

TEST(PykeenMetrics, BaseMetricsOfOneToTwo) {
  const PykeenValues v = example(false);
  expectNear(v, "count", 3);
  expectNear(v, "arithmetic_mean_rank", 4.0 / 3);         // (1+1+2)/3
  expectNear(v, "inverse_arithmetic_mean_rank", 3.0 / 4); // 1 / MR
  expectNear(v, "geometric_mean_rank", std::cbrt(2.0));   // (1*1*2)^(1/3)
  expectNear(v, "inverse_geometric_mean_rank", 1 / std::cbrt(2.0));
  expectNear(v, "inverse_harmonic_mean_rank", 5.0 / 6); // (1+1+1/2)/3
  expectNear(v, "harmonic_mean_rank", 6.0 / 5);         // 1 / MRR
  expectNear(v, "median_rank", 1);                      // {1, 1, 2}
  expectNear(v, "inverse_median_rank", 1);
  // |r - 1| = {0, 0, 1}: median 0.
  expectNear(v, "median_absolute_deviation", 0);
  // mean 4/3: (1/9 + 1/9 + 4/9) / 3 = 2/9.
  expectNear(v, "variance", 2.0 / 9);
  expectNear(v, "standard_deviation", std::sqrt(2.0 / 9));
  expectNear(v, "hits_at_1", 2.0 / 3);
  expectNear(v, "hits_at_3", 1);
  expectNear(v, "hits_at_5", 1);
  // PyKEEN defines the derived metrics for realistic ranks only.
  EXPECT_EQ(v.count("z_arithmetic_mean_rank"), 0u);
  EXPECT_EQ(v.count("adjusted_hits_at_1"), 0u);
  EXPECT_EQ(v.size(), 12u + 3u);
}

TEST(PykeenMetrics, MedianAndMadOfAnEvenCount) {
  // {1, 2, 4, 7}: median (2+4)/2 = 3; |r - 3| = {2, 1, 1, 4} -> median 1.5,
  // scaled to the normal: 1.5 / Phi^-1(3/4); mean 3.5, squares 6.25 + 2.25
  // + 0.25 + 12.25 = 21 -> variance 21/4.
  const PykeenValues v = pykeenValues({1, 2, 4, 7}, {9, 9, 9, 9}, {}, false);
  expectNear(v, "median_rank", 3);
  expectNear(v, "inverse_median_rank", 1.0 / 3);
  expectNear(v, "median_absolute_deviation", 1.5 / 0.6744897501960817);
  expectNear(v, "variance", 21.0 / 4);
  expectNear(v, "standard_deviation", std::sqrt(21.0 / 4));
}

TEST(PykeenMetrics, ArithmeticMeanRankAdjustedAndZ) {
  const PykeenValues v = example(true);
  // E[MR] = mean((N+1)/2) = (3/2 + 2 + 5/2) / 3 = 2;
  // V[MR] = mean((N^2-1)/12) / m = ((3 + 8 + 15) / 12 / 3) / 3 = 13/54.
  const double mr = 4.0 / 3, e = 2, var = 13.0 / 54;
  expectNear(v, "adjusted_arithmetic_mean_rank", mr / e); // 2/3
  expectNear(v, "adjusted_arithmetic_mean_rank_index",
             1 - (mr - 1) / (e - 1)); // 2/3
  // Smaller is better: z = (E - MR) / sqrt(V) > 0 for a better-than-random MR.
  expectNear(v, "z_arithmetic_mean_rank", (e - mr) / std::sqrt(var));
}

TEST(PykeenMetrics, InverseHarmonicMeanRankAdjustedAndZ) {
  const PykeenValues v = example(true);
  // E[1/r] = H(N)/N: H(2)/2 = 3/4, H(3)/3 = 11/18, H(4)/4 = 25/48.
  const double e = (3.0 / 4 + 11.0 / 18 + 25.0 / 48) / 3;
  // V[1/r] = (N H2(N) - H(N)^2) / N^2: N=2: (5/2 - 9/4)/4 = 1/16;
  // N=3: (49/12 - 121/36)/9 = 13/162; N=4: (205/36 - 625/144)/16 = 195/2304.
  // (N=2 directly: 1/r in {1, 1/2}, mean 3/4, variance 1/16.)
  const double var = (1.0 / 16 + 13.0 / 162 + 195.0 / 2304) / 3 / 3;
  const double mrr = 5.0 / 6;
  expectNear(v, "adjusted_inverse_harmonic_mean_rank", (mrr - e) / (1 - e));
  expectNear(v, "z_inverse_harmonic_mean_rank", (mrr - e) / std::sqrt(var));
}

TEST(PykeenMetrics, GeometricMeanRankAdjustedAndZ) {
  const PykeenValues v = example(true);
  // E[GMR] = prod_i E[r_i^(1/3)], E[r^a] = (1/N) sum_{j<=N} j^a; the
  // second moment the same with a = 2/3.
  const double c2 = std::cbrt(2.0), c3 = std::cbrt(3.0), c4 = std::cbrt(4.0);
  const double e =
      (1 + c2) / 2 * ((1 + c2 + c3) / 3) * ((1 + c2 + c3 + c4) / 4);
  const double second = (1 + c2 * c2) / 2 * ((1 + c2 * c2 + c3 * c3) / 3) *
                        ((1 + c2 * c2 + c3 * c3 + c4 * c4) / 4);
  const double var = second - e * e;
  const double gmr = c2;
  expectNear(v, "adjusted_geometric_mean_rank_index", (gmr - e) / (1 - e));
  expectNear(v, "z_geometric_mean_rank", (e - gmr) / std::sqrt(var));
  EXPECT_GT(value(v, "z_geometric_mean_rank"), 0); // better than random
}

TEST(PykeenMetrics, HitsAtKAdjustedAndZ) {
  const PykeenValues v = example(true);
  // k = 1: p = min(k/N, 1) = 1/2, 1/3, 1/4; E = 13/36;
  // V = (1/4 + 2/9 + 3/16) / 9. Hits@1 = 2/3.
  const double e1 = 13.0 / 36, v1 = (1.0 / 4 + 2.0 / 9 + 3.0 / 16) / 9;
  expectNear(v, "adjusted_hits_at_1", (2.0 / 3 - e1) / (1 - e1)); // 11/23
  expectNear(v, "adjusted_hits_at_1", 11.0 / 23);
  expectNear(v, "z_hits_at_1", (2.0 / 3 - e1) / std::sqrt(v1));
  // k = 3: p = 1, 1, 3/4; E = 11/12; V = (3/16) / 9 = 1/48; Hits@3 = 1.
  expectNear(v, "adjusted_hits_at_3", 1);
  expectNear(v, "z_hits_at_3", (1 - 11.0 / 12) / std::sqrt(1.0 / 48));
  // k = 5 covers every list: E = 1, V = 0: both undefined (empty), where
  // PyKEEN's _safe_divide would divide by 1e-12.
  expectNear(v, "hits_at_5", 1);
  expectEmpty(v, "adjusted_hits_at_5");
  expectEmpty(v, "z_hits_at_5");
  EXPECT_EQ(v.size(), 12u + 3u + 7u + 2u * 3u);
}

TEST(PykeenMetrics, OneCandidateListsLeaveTheDerivedMetricsEmpty) {
  // N = 1 everywhere: E[MR] = 1 and every variance 0.
  const PykeenValues v = pykeenValues({1, 1}, {1, 1}, {1}, true);
  expectNear(v, "arithmetic_mean_rank", 1);
  expectNear(v, "adjusted_arithmetic_mean_rank", 1);
  for (const char *key :
       {"adjusted_arithmetic_mean_rank_index", "z_arithmetic_mean_rank",
        "adjusted_geometric_mean_rank_index", "z_geometric_mean_rank",
        "adjusted_inverse_harmonic_mean_rank", "z_inverse_harmonic_mean_rank",
        "adjusted_hits_at_1", "z_hits_at_1"})
    expectEmpty(v, key);
}

TEST(PykeenMetrics, NoPairsIsEmptyNotZero) {
  const PykeenValues v = pykeenValues({}, {}, {10}, true);
  EXPECT_EQ(v.size(), 12u + 1u + 7u + 2u);
  for (const auto &[key, value] : v)
    EXPECT_FALSE(value.has_value()) << key;
}

TEST(PykeenMetrics, FlatMapBySideAndRankTypeInTheReport) {
  // Head: realistic ranks 1 (N 2) and 2.5 (N 5, ties 2..3); tail: 4 (N 4).
  std::vector<PairRanks> pairs(3);
  pairs[0].mode = Mode::Head;
  pairs[0].listSize = 2;
  pairs[0].rank = {1, 1, 1};
  pairs[1].mode = Mode::Head;
  pairs[1].listSize = 5;
  pairs[1].rank = {2, 3, 2.5};
  pairs[2].query = 1;
  pairs[2].mode = Mode::Tail;
  pairs[2].listSize = 4;
  pairs[2].rank = {4, 4, 4};
  RankMetricOptions options;
  options.hits = {1, 3, 5, 10};
  const RankMetrics m = computeRankMetrics(pairs, options);
  // 9 (side, rank type) x (12 base + 4 hits) + 3 sides x (7 + 2 x 4).
  EXPECT_EQ(m.pykeen.size(), 9u * 16u + 3u * 15u);
  expectNear(m.pykeen, "head.optimistic.arithmetic_mean_rank", 1.5);
  expectNear(m.pykeen, "head.pessimistic.median_rank", 2);
  expectNear(m.pykeen, "head.realistic.geometric_mean_rank", std::sqrt(2.5));
  expectNear(m.pykeen, "tail.realistic.count", 1);
  expectNear(m.pykeen, "both.realistic.count", 3);
  // both, realistic: MR = 7.5/3 = 2.5; E[MR] = (3/2 + 3 + 5/2)/3 = 7/3.
  expectNear(m.pykeen, "both.realistic.adjusted_arithmetic_mean_rank",
             2.5 / (7.0 / 3));
  // Hits@5 of the 5-list: p = 1, 1, 1 -> E = 1: undefined.
  expectEmpty(m.pykeen, "both.realistic.adjusted_hits_at_5");
  EXPECT_EQ(m.pykeen.count("both.optimistic.z_hits_at_5"), 0u);

  const nlohmann::json flat = pykeenKeyMap(m);
  // PyKEEN's set plus the optimistic and pessimistic AMRI kept from earlier
  // reports (PyKEEN defines it for realistic ranks only).
  EXPECT_EQ(flat.size(), m.pykeen.size() + 6u);
  EXPECT_TRUE(
      flat.contains("head.optimistic.adjusted_arithmetic_mean_rank_index"));
  EXPECT_TRUE(flat["both.realistic.adjusted_hits_at_5"].is_null());
  EXPECT_DOUBLE_EQ(flat["both.realistic.z_hits_at_1"].get<double>(),
                   *m.pykeen.at("both.realistic.z_hits_at_1"));
  // The keys rank_metrics also has hold the same values, bit for bit.
  const RankSummary &both = m.overall[static_cast<int>(Side::Both)]
                                     [static_cast<int>(RankType::Realistic)];
  EXPECT_EQ(*m.pykeen.at("both.realistic.arithmetic_mean_rank"),
            *both.meanRank);
  EXPECT_EQ(*m.pykeen.at("both.realistic.inverse_harmonic_mean_rank"),
            *both.mrr);
  EXPECT_NEAR(
      *m.pykeen.at("both.realistic.adjusted_arithmetic_mean_rank_index"),
      *both.amri, 1e-12);
}
