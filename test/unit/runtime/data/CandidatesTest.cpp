//===- CandidatesTest.cpp - SplitMix64, filtered candidates, sampling -----===//
#include "TestUtil.h"

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace proofc;
using proofc::test::TempDir;

namespace {

/// 20 entities e00..e19 (id = number), relations r (0) and s (1).
/// T restricted to r: (e00,r,e01) (e00,r,e02) (e03,r,e01) (e04,r,e01)
/// (e06,r,e07) (e08,r,e09); (e05,s,e01) must not filter r candidates.
Dataset tinyDataset(const TempDir &dir) {
  std::string train = "e00\tr\te01\ne00\tr\te02\ne03\tr\te01\ne05\ts\te01\n";
  for (int i = 10; i < 20; i += 2)
    train += fmt::format("e{}\ts\te{}\n", i, i + 1);
  dir.write("train.tsv", train);
  dir.write("valid.tsv", "e04\tr\te01\n");
  dir.write("test.tsv", "e00\tr\te01\ne06\tr\te07\ne00\tr\te01\ne08\tr\te09\n");
  dir.write("rules.txt", "r(X,Y) :- s(X,Y).\n");
  Dataset ds = loadDataset(dir.path());
  EXPECT_EQ(ds.numEntities(), 20);
  return ds;
}

std::vector<int32_t> entitiesOf(const CandidateSet &set,
                                const CandidateGroup &g) {
  std::vector<int32_t> out;
  for (int64_t i = g.begin; i < g.end; ++i)
    out.push_back(set.candidates[i].entity);
  return out;
}

std::vector<int32_t> allBut(std::initializer_list<int32_t> excluded) {
  std::vector<int32_t> out;
  for (int32_t e = 0; e < 20; ++e)
    if (std::find(excluded.begin(), excluded.end(), e) == excluded.end())
      out.push_back(e);
  return out;
}

std::vector<int32_t> withPositive(int32_t positive, std::vector<int32_t> rest) {
  rest.insert(rest.begin(), positive);
  return rest;
}

} // namespace

TEST(SplitMix64, KnownValues) {
  SplitMix64 zero(0);
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(zero.next(), 0x06C45D188009454Full);
  SplitMix64 other(12345);
  EXPECT_EQ(other.next(), 0x22118258A9D111A0ull);
  EXPECT_EQ(other.next(), 0x346EDCE5F713F8EDull);
}

TEST(Candidates, ModeNames) {
  EXPECT_STREQ(modeName(Mode::Head), "head");
  EXPECT_STREQ(modeName(Mode::Tail), "tail");
}

TEST(Candidates, AllFilteredCorruptionsAscending) {
  TempDir dir;
  Dataset ds = tinyDataset(dir);
  CandidateSet set = buildCandidates(ds, CandidateOptions{});
  // Deduplicated test split in file order.
  ASSERT_EQ(set.queries.size(), 3u);
  EXPECT_EQ(set.queries[0], (Triple{0, 0, 1}));
  EXPECT_EQ(set.queries[1], (Triple{6, 0, 7}));
  EXPECT_EQ(set.queries[2], (Triple{8, 0, 9}));
  ASSERT_EQ(set.groups.size(), 6u);
  for (size_t g = 0; g < set.groups.size(); ++g) {
    EXPECT_EQ(set.groups[g].query, static_cast<int32_t>(g / 2));
    EXPECT_EQ(set.groups[g].mode, g % 2 == 0 ? Mode::Head : Mode::Tail);
    EXPECT_EQ(set.groups[g].begin, g == 0 ? 0 : set.groups[g - 1].end);
  }
  EXPECT_EQ(set.groups.back().end, static_cast<int64_t>(set.candidates.size()));

  // Head of (e00, r, e01): e00 e03 e04 are known heads.
  EXPECT_EQ(entitiesOf(set, set.groups[0]), withPositive(0, allBut({0, 3, 4})));
  // Tail of (e00, r, e01): e01 e02 are known tails.
  EXPECT_EQ(entitiesOf(set, set.groups[1]), withPositive(1, allBut({1, 2})));
  EXPECT_EQ(entitiesOf(set, set.groups[2]), withPositive(6, allBut({6})));
  EXPECT_EQ(entitiesOf(set, set.groups[5]), withPositive(9, allBut({9})));
  EXPECT_EQ(set.candidates.size(), 17u + 18u + 4 * 19u + 6u);

  for (const CandidateGroup &g : set.groups) {
    const Triple q = set.queries[g.query];
    EXPECT_EQ(set.candidates[g.begin].triple, q); // positive first
    for (int64_t i = g.begin; i < g.end; ++i) {
      const Candidate &c = set.candidates[i];
      EXPECT_EQ(c.query, g.query);
      EXPECT_EQ(c.mode, g.mode);
      Triple expected = g.mode == Mode::Head ? Triple{c.entity, q.r, q.t}
                                             : Triple{q.h, q.r, c.entity};
      EXPECT_EQ(c.triple, expected);
    }
  }
}

TEST(Candidates, MaxQueriesAndOtherSplits) {
  TempDir dir;
  Dataset ds = tinyDataset(dir);
  CandidateOptions opts;
  opts.queries = 2;
  CandidateSet set = buildCandidates(ds, opts);
  ASSERT_EQ(set.queries.size(), 2u);
  EXPECT_EQ(set.queries[1], (Triple{6, 0, 7})); // after deduplication
  EXPECT_EQ(set.groups.size(), 4u);

  opts.queries = 0;
  EXPECT_TRUE(buildCandidates(ds, opts).candidates.empty());

  opts.queries = -1;
  opts.split = "valid";
  set = buildCandidates(ds, opts);
  ASSERT_EQ(set.queries.size(), 1u);
  EXPECT_EQ(set.queries[0], (Triple{4, 0, 1}));
  EXPECT_EQ(entitiesOf(set, set.groups[0]), withPositive(4, allBut({0, 3, 4})));

  opts.split = "dev";
  EXPECT_THROW(buildCandidates(ds, opts), Error);
}

TEST(Candidates, SamplesWithPartialFisherYatesInDrawOrder) {
  TempDir dir;
  Dataset ds = tinyDataset(dir);
  CandidateOptions opts;
  opts.corruptions = 5;
  CandidateSet set = buildCandidates(ds, opts);
  ASSERT_EQ(set.groups.size(), 6u);
  // Golden values from an independent implementation of spec §6.
  EXPECT_EQ(entitiesOf(set, set.groups[0]),
            (std::vector<int32_t>{0, 5, 6, 1, 8, 16}));
  EXPECT_EQ(entitiesOf(set, set.groups[1]),
            (std::vector<int32_t>{1, 14, 7, 5, 6, 15}));
  for (const CandidateGroup &g : set.groups)
    EXPECT_EQ(g.end - g.begin, 6);

  opts.seed = 7;
  set = buildCandidates(ds, opts);
  EXPECT_EQ(entitiesOf(set, set.groups[0]),
            (std::vector<int32_t>{0, 10, 14, 11, 2, 1}));
}

TEST(Candidates, SampleMatchesSpecFormulaForEveryGroup) {
  TempDir dir;
  Dataset ds = tinyDataset(dir);
  CandidateSet all = buildCandidates(ds, CandidateOptions{});
  CandidateOptions opts;
  opts.corruptions = 7;
  opts.seed = 0xDEADBEEFull;
  CandidateSet sampled = buildCandidates(ds, opts);
  ASSERT_EQ(sampled.groups.size(), all.groups.size());
  for (size_t g = 0; g < all.groups.size(); ++g) {
    std::vector<int32_t> list = entitiesOf(all, all.groups[g]);
    list.erase(list.begin()); // the positive
    uint64_t qi = g / 2, mi = g % 2;
    SplitMix64 rng(opts.seed ^ ((2 * qi + mi + 1) * 0xD1B54A32D192ED03ull));
    for (size_t j = 0; j < 7; ++j)
      std::swap(list[j], list[j + rng.next() % (list.size() - j)]);
    list.resize(7);
    std::vector<int32_t> got = entitiesOf(sampled, sampled.groups[g]);
    EXPECT_EQ(got, withPositive(got[0], list)) << "group " << g;
    std::set<int32_t> distinct(got.begin(), got.end());
    EXPECT_EQ(distinct.size(), got.size());
  }
}

TEST(Candidates, NoSamplingWhenKCoversTheList) {
  TempDir dir;
  Dataset ds = tinyDataset(dir);
  CandidateSet all = buildCandidates(ds, CandidateOptions{});
  for (int64_t k : {17, 18, 19, 1000, 0, -3}) {
    CandidateOptions opts;
    opts.corruptions = k;
    opts.seed = 99;
    CandidateSet set = buildCandidates(ds, opts);
    // Group 0 has exactly 17 corruptions: K >= 17 keeps them all, ascending.
    EXPECT_EQ(entitiesOf(set, set.groups[0]), entitiesOf(all, all.groups[0]))
        << "K = " << k;
  }
  CandidateOptions opts;
  opts.corruptions = 16;
  CandidateSet set = buildCandidates(ds, opts);
  EXPECT_EQ(set.groups[0].end - set.groups[0].begin, 17);
  EXPECT_NE(entitiesOf(set, set.groups[0]), entitiesOf(all, all.groups[0]));
}

TEST(Candidates, Deterministic) {
  Dataset ds = loadDataset(proofc::test::dataDir("nations"));
  CandidateOptions opts;
  opts.corruptions = 5;
  opts.seed = 3;
  CandidateSet a = buildCandidates(ds, opts), b = buildCandidates(ds, opts);
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i)
    ASSERT_EQ(a.candidates[i].triple, b.candidates[i].triple) << i;
  opts.seed = 4;
  CandidateSet c = buildCandidates(ds, opts);
  size_t differ = 0;
  for (size_t i = 0; i < a.candidates.size(); ++i)
    differ += !(a.candidates[i].triple == c.candidates[i].triple);
  EXPECT_GT(differ, a.candidates.size() / 4);
}

struct CandidateCount {
  const char *dataset;
  size_t queries;
  size_t candidates;
};

class PublishedCandidateCounts
    : public ::testing::TestWithParam<CandidateCount> {};

// The candidate totals of shared/weights/README.md (test split, K = 100,
// seed 0), computed there by an independent evaluator.
TEST_P(PublishedCandidateCounts, Match) {
  Dataset ds = loadDataset(proofc::test::dataDir(GetParam().dataset));
  CandidateOptions opts;
  opts.corruptions = 100;
  CandidateSet set = buildCandidates(ds, opts);
  EXPECT_EQ(set.queries.size(), GetParam().queries);
  EXPECT_EQ(set.groups.size(), 2 * GetParam().queries);
  EXPECT_EQ(set.candidates.size(), GetParam().candidates);
}

INSTANTIATE_TEST_SUITE_P(
    Shared, PublishedCandidateCounts,
    ::testing::Values(CandidateCount{"countries_s1", 24, 4848},
                      CandidateCount{"countries_s3", 24, 4848},
                      CandidateCount{"nations", 201, 3198},
                      CandidateCount{"umls", 3264, 634741},
                      CandidateCount{"kinship", 5343, 1008288}),
    [](const auto &info) { return std::string(info.param.dataset); });
