//===- SharedListsTest.cpp - Lists of the same corruptions run once -------===//
//
// SharedLists (runtime/src/session/SharedLists.h): a list whose corruptions
// an earlier list of the run holds runs only its positive, and takes the
// rest from its source. These tests check that this never changes a result
// -- outcomes, the outcomes file's bytes, the report's metrics, the proofs
// -- on the host backend with real data, whatever the blocks, the range,
// the keep bound or the sampling; that the lists it shares are exactly the
// lists whose built corruptions are equal; and that fewer candidates run.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "runtime/session/InstantBackend.h"

#include "host/HostBackend.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/QueryRanges.h"
#include "session/SharedLists.h"
#include "support/FileIO.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace proofc::test {
namespace {

/// The host backend, counting the candidates it is given.
class CountingHostBackend : public HostBackend {
public:
  CountingHostBackend() : HostBackend(HostBackendOptions{2}) {}
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    ran += static_cast<int64_t>(inputs.candidates.candidates.size());
    return HostBackend::run(inputs, timings);
  }
  int64_t ran = 0;
};

/// The corruptions (triples, in order) of every list of `set`.
std::vector<std::vector<Triple>> corruptionsOf(const CandidateSet &set) {
  std::vector<std::vector<Triple>> lists;
  for (const CandidateGroup &g : set.groups) {
    lists.emplace_back();
    for (int64_t i = g.begin + 1; i < g.end; ++i)
      lists.back().push_back(set.candidates[static_cast<size_t>(i)].triple);
  }
  return lists;
}

/// The first `queries` test queries of a shared dataset, `corruptions` a
/// list (0: every filtered one), and their builder.
struct Pool {
  Pool(const std::string &dataset, int64_t queries, int64_t corruptions)
      : ds(loadDataset(dataDir(dataset))),
        builder(ds, options(queries, corruptions)) {}
  static CandidateOptions options(int64_t queries, int64_t corruptions) {
    CandidateOptions co;
    co.queries = queries;
    co.corruptions = corruptions;
    return co;
  }
  Dataset ds;
  CandidateBuilder builder;
};

struct SharedRun {
  RunOutput out;
  std::string tsv, report, proofs;
  int64_t ran = 0;
};

SharedRun runOnce(RunSessionOptions o, bool share, const std::string &tag,
                  TempDir &dir) {
  CountingHostBackend backend;
  o.shareLists = share;
  o.keepOutcomes = true;
  o.threads = 2;
  o.outcomes = dir.file(tag + ".tsv");
  o.report = dir.file(tag + ".json");
  if (o.recordActions)
    o.proofs = dir.file(tag + ".proofs");
  RunSession session(v10Program(), backend, "cpu", o);
  SharedRun r;
  r.out = session.evaluate();
  session.writeOutputs(r.out, stdout);
  r.tsv = readFile(o.outcomes);
  r.report = readFile(o.report);
  if (o.recordActions)
    r.proofs = readFile(o.proofs);
  r.ran = backend.ran;
  return r;
}

void expectSameRun(const SharedRun &a, const SharedRun &b) {
  expectSameOutcomes(a.out.outcomes, b.out.outcomes);
  EXPECT_EQ(a.tsv, b.tsv);
  EXPECT_EQ(a.proofs, b.proofs);
  const nlohmann::json ja = nlohmann::json::parse(a.report);
  const nlohmann::json jb = nlohmann::json::parse(b.report);
  for (const char *key : {"metrics", "rank_metrics", "pykeen"})
    EXPECT_EQ(ja[key].dump(), jb[key].dump()) << key;
  EXPECT_EQ(ja["outcomes"]["sha256"], jb["outcomes"]["sha256"]);
}

TEST(SharedLists, TheSharedListsAreTheListsOfEqualCorruptions) {
  // kinship's full ranking: its test queries share (h, r) and (r, t) often.
  for (int64_t corruptions : {int64_t{0}, int64_t{40}, int64_t{104}}) {
    SCOPED_TRACE(fmt::format("corruptions {}", corruptions));
    Pool pool("kinship", 120, corruptions);
    const CandidateBuilder &builder = pool.builder;
    const CandidateSet set = builder.build(0, builder.layout().queryCount());
    const std::vector<std::vector<Triple>> lists = corruptionsOf(set);
    const QueryRange all = wholeRange(builder.layout());
    SharedLists shared(builder, all, true, 0, ~uint64_t{0});
    // Brute force: a list shares when an earlier list has equal corruptions
    // and it takes every filtered corruption.
    int64_t expected = 0;
    for (size_t l = 0; l < lists.size(); ++l) {
      const CandidateGroup &g = set.groups[l];
      const bool sampled = builder.corruptionsKey(g.query, g.mode) < 0;
      bool equalEarlier = false;
      for (size_t e = 0; e < l && !equalEarlier; ++e)
        equalEarlier = set.groups[e].mode == g.mode && lists[e] == lists[l] &&
                       !lists[l].empty();
      if (equalEarlier && !sampled)
        expected += static_cast<int64_t>(lists[l].size());
      if (sampled) // a sample of some of many: never the whole list
        EXPECT_EQ(static_cast<int64_t>(lists[l].size()), corruptions);
    }
    EXPECT_EQ(shared.sharedCandidates(), expected);
    if (corruptions != 40) // 40 samples nearly every list
      EXPECT_GT(expected, 0);
    // What runs, list by list: a copy's positive, everything else.
    const CandidateSet run = shared.runSet(builder, 0, all.queryEnd, 0);
    EXPECT_EQ(static_cast<int64_t>(run.candidates.size()),
              all.candidates() - expected);
    EXPECT_EQ(shared.runLayout().candidateCount(),
              static_cast<int64_t>(run.candidates.size()));
    ASSERT_EQ(run.groups.size(), set.groups.size());
    for (size_t l = 0; l < set.groups.size(); ++l) {
      EXPECT_EQ(run.groups[l].begin, shared.runLayout().groupBegin[l]);
      EXPECT_EQ(
          run.candidates[static_cast<size_t>(run.groups[l].begin)].entity,
          set.candidates[static_cast<size_t>(set.groups[l].begin)].entity);
    }
  }
}

TEST(SharedLists, SharingNeverChangesAResult) {
  // countries_s1, every corruption of the first 12 queries (1,691 of 5,791
  // candidates shared): sources and copies in one block, and across blocks
  // (a query a block).
  TempDir dir;
  RunSessionOptions base = sessionOptions("countries_s1", 12);
  base.rankMetrics.perRelation = true;
  const SharedRun reference = runOnce(base, false, "off", dir);
  ASSERT_GT(reference.out.report.metrics.proved, 0);
  for (int64_t block : {int64_t{0}, int64_t{1}, int64_t{700}}) {
    SCOPED_TRACE(fmt::format("block {}", block));
    RunSessionOptions o = base;
    o.blockCandidates = block;
    const SharedRun shared = runOnce(o, true, fmt::format("on{}", block), dir);
    expectSameRun(reference, shared);
    EXPECT_LT(shared.ran, reference.ran);
  }
}

TEST(SharedLists, ProofsAndShardsAreTheSame) {
  TempDir dir;
  RunSessionOptions base = sessionOptions("countries_s1", 8);
  base.recordActions = true;
  base.blockCandidates = 300;
  const SharedRun off = runOnce(base, false, "off", dir);
  const SharedRun on = runOnce(base, true, "on", dir);
  expectSameRun(off, on);
  EXPECT_LT(on.ran, off.ran);
  EXPECT_FALSE(on.proofs.empty());

  // A shard (a range that does not start at the first query) picks its
  // own sources: the same tally as the shard run unshared.
  std::vector<RunOutput> parts;
  std::vector<int64_t> ran;
  for (bool share : {false, true}) {
    RunSessionOptions shard = sessionOptions("countries_s1", 12);
    shard.shardIndex = 1;
    shard.shardCount = 2;
    shard.shareLists = share;
    shard.part = dir.file(fmt::format("part{}", share));
    CountingHostBackend backend;
    RunSession session(v10Program(), backend, "cpu", shard);
    parts.push_back(session.evaluate());
    ran.push_back(backend.ran);
  }
  ASSERT_GT(parts[0].range.queryBegin, 0);
  EXPECT_LT(ran[1], ran[0]);
  ASSERT_EQ(parts[0].pairs.size(), parts[1].pairs.size());
  ASSERT_EQ(parts[0].pairs.size(),
            static_cast<size_t>(2 * parts[0].range.queries()));
  for (size_t i = 0; i < parts[0].pairs.size(); ++i) {
    EXPECT_EQ(parts[0].pairs[i].rank, parts[1].pairs[i].rank) << i;
    EXPECT_EQ(parts[0].pairs[i].listSize, parts[1].pairs[i].listSize) << i;
  }
  EXPECT_EQ(parts[0].counts.proved, parts[1].counts.proved);
  EXPECT_EQ(parts[0].counts.depthSum, parts[1].counts.depthSum);
}

TEST(SharedLists, SampledListsAndTheKeepBoundRunTheirOwn) {
  // Sampled lists (K = 3 of kinship's ~100) never share; with nothing to
  // keep, only lists of one block share; results stay the same.
  InstantBackend instant;
  for (int64_t corruptions : {int64_t{3}, int64_t{0}}) {
    SCOPED_TRACE(fmt::format("corruptions {}", corruptions));
    Pool pool("kinship", 200, corruptions);
    const CandidateBuilder &builder = pool.builder;
    const Dataset &ds = pool.ds;
    const QueryRange all = wholeRange(builder.layout());
    const SharedLists unbounded(builder, all, true, 0, ~uint64_t{0});
    const SharedLists none(builder, all, true, 0, 0);
    // Two of kinship's lists (about 104 corruptions) at 8 B an outcome.
    const uint64_t bound = 2 * 8 * 104;
    const SharedLists some(builder, all, true, 0, bound);
    if (corruptions == 3) {
      EXPECT_FALSE(unbounded.any());
      continue;
    }
    EXPECT_FALSE(none.any()); // every source needs keeping in the bound
    EXPECT_TRUE(some.any());
    EXPECT_GT(unbounded.sharedCandidates(), some.sharedCandidates());
    EXPECT_GT(some.sharedCandidates(), 0);

    // Blocks of a query: every copy's source is kept from an earlier block,
    // and what is kept never passes the bound.
    SharedLists plan(builder, all, true, 0, bound);
    const CandidateSet whole = builder.build(0, all.queryEnd);
    const ProgramSpec program = v10Program();
    const TensorMap noWeights;
    std::vector<Outcome> expected;
    {
      EvalInputs in{program, ds, noWeights, whole};
      BackendTimings t;
      expected = instant.run(in, t);
    }
    std::vector<Outcome> got;
    for (int64_t q = 0; q < all.queryEnd; ++q) {
      CandidateSet block = builder.build(q, q + 1);
      const CandidateSet run = plan.runSet(builder, q, q + 1, 0);
      EvalInputs in{program, ds, noWeights, run};
      BackendTimings t;
      std::vector<Outcome> outcomes = instant.run(in, t);
      plan.expand(block, outcomes, nullptr);
      EXPECT_LE(plan.keptBytes(), bound);
      got.insert(got.end(), outcomes.begin(), outcomes.end());
    }
    expectSameOutcomes(expected, got);
  }
}

TEST(SharedLists, TalliesEqualTheWholeBlocksRanksAndCounts) {
  // kinship's full ranking (InstantBackend: many tied scores, every status)
  // block by block: tally() on what ran gives rankPairs and the counts of
  // the whole block, bit for bit, with the sources in earlier blocks or the
  // same one.
  Pool pool("kinship", 200, 0);
  const CandidateBuilder &builder = pool.builder;
  const QueryRange all = wholeRange(builder.layout());
  const ProgramSpec program = v10Program();
  const TensorMap noWeights;
  InstantBackend instant;
  for (int64_t perBlock : {int64_t{1}, int64_t{7}, int64_t{200}}) {
    SCOPED_TRACE(fmt::format("{} queries a block", perBlock));
    SharedLists plan(builder, all, true, 0, ~uint64_t{0});
    ASSERT_TRUE(plan.any());
    std::vector<PairRanks> expected, got;
    OutcomeCounts expectedCounts, gotCounts;
    for (int64_t q = 0; q < all.queryEnd; q += perBlock) {
      const int64_t end = std::min(all.queryEnd, q + perBlock);
      const CandidateSet whole = builder.build(q, end);
      BackendTimings t;
      const std::vector<Outcome> wholeOutcomes =
          instant.run(EvalInputs{program, pool.ds, noWeights, whole}, t);
      const std::vector<PairRanks> pairs = rankPairs(whole, wholeOutcomes);
      expected.insert(expected.end(), pairs.begin(), pairs.end());
      expectedCounts.add(wholeOutcomes);
      const CandidateSet run = plan.runSet(builder, q, end, 0);
      plan.tally(run,
                 instant.run(EvalInputs{program, pool.ds, noWeights, run}, t),
                 got, gotCounts);
    }
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].rank, expected[i].rank) << i;
      EXPECT_EQ(got[i].listSize, expected[i].listSize) << i;
      EXPECT_EQ(got[i].query, expected[i].query) << i;
      EXPECT_EQ(got[i].mode, expected[i].mode) << i;
      EXPECT_EQ(got[i].relation, expected[i].relation) << i;
    }
    EXPECT_EQ(gotCounts.candidates, expectedCounts.candidates);
    EXPECT_EQ(gotCounts.proved, expectedCounts.proved);
    EXPECT_EQ(gotCounts.failed, expectedCounts.failed);
    EXPECT_EQ(gotCounts.truncated, expectedCounts.truncated);
    EXPECT_EQ(gotCounts.depthSum, expectedCounts.depthSum);
    EXPECT_EQ(plan.keptBytes(), 0u); // every source's last copy consumed
  }
}

TEST(SharedLists, ARunWithoutOutcomesTalliesTheSameReport) {
  // The tools' run without an outcomes file (no outcome kept, no block
  // handed on) tallies over several blocks (block 0: one block, the whole
  // pool, which expands instead): its report equals the unshared run's.
  // countries_s1 on the host backend, and kinship's full ranking on
  // InstantBackend (unproved positives among copies: the tally's -inf
  // case).
  TempDir dir;
  struct Case {
    std::string dataset;
    int64_t queries;
    bool instant;
  };
  for (const Case &c :
       {Case{"countries_s1", 12, false}, Case{"kinship", 200, true}}) {
    for (int64_t block : {int64_t{0}, int64_t{1}, int64_t{700}}) {
      SCOPED_TRACE(fmt::format("{}, block {}", c.dataset, block));
      std::string reports[2];
      for (int share = 0; share < 2; ++share) {
        RunSessionOptions o = sessionOptions(c.dataset, c.queries);
        o.rankMetrics.perRelation = true;
        o.rankMetrics.bootstrapSamples = 10;
        o.blockCandidates = block;
        o.shareLists = share == 1;
        o.keepOutcomes = false;
        o.report =
            dir.file(fmt::format("r{}{}{}.json", c.dataset, block, share));
        CountingHostBackend host;
        InstantBackend instant;
        Backend &backend = c.instant ? static_cast<Backend &>(instant) : host;
        RunSession session(v10Program(), backend, "cpu", o);
        session.writeOutputs(session.evaluate(), stdout);
        reports[share] = readFile(o.report);
      }
      const nlohmann::json a = nlohmann::json::parse(reports[0]);
      const nlohmann::json b = nlohmann::json::parse(reports[1]);
      for (const char *key : {"metrics", "rank_metrics", "pykeen"})
        EXPECT_EQ(a[key].dump(), b[key].dump()) << key;
    }
  }
}

TEST(SharedLists, SeveralDeviceWorkersGiveTheSame) {
  // Blocks of about 300 that run, taken by three workers (one slow, so
  // that blocks finish out of order): the consumer still puts every copy's
  // corruptions from its source, kept or in its block.
  RunSessionOptions o = sessionOptions("countries_s1", 20);
  o.keepOutcomes = true;
  o.blockCandidates = 300;
  InstantBackend plain;
  o.shareLists = false;
  RunSession one(v10Program(), plain, "cpu", o);
  const RunOutput expected = one.evaluate();
  SlowBackend slow(std::chrono::milliseconds(20));
  InstantBackend fast1, fast2;
  o.shareLists = true;
  RunSession many(v10Program(), {&slow, &fast1, &fast2}, "cpu", o);
  const RunOutput got = many.evaluate();
  expectSameOutcomes(expected.outcomes, got.outcomes);
  EXPECT_EQ(expected.report.metrics.both.mrr, got.report.metrics.both.mrr);
}

/// InstantBackend, with a NaN log-probability for one triple (a real
/// backend's NaN, like its every outcome, depends on the triple alone).
class NanTripleBackend : public InstantBackend {
public:
  explicit NanTripleBackend(Triple nan) : nan(nan) {}
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    std::vector<Outcome> out = InstantBackend::run(inputs, timings);
    for (size_t i = 0; i < out.size(); ++i)
      if (inputs.candidates.candidates[i].triple == nan)
        out[i].logp = std::nanf("");
    return out;
  }
  Triple nan;
};

TEST(SharedLists, TheFirstNonFiniteLogitIsNamedByThePoolsNumbering) {
  // A NaN in a source list that comes after a copy: the candidate that
  // runs is at another place in the run set than in the pool, and the
  // error names the pool's, as an unshared run does.
  Pool pool("countries_s1", 20, 0);
  const CandidateBuilder &builder = pool.builder;
  const QueryRange all = wholeRange(builder.layout());
  const SharedLists plan(builder, all, true, 0, ~uint64_t{0});
  const CandidateSet set = builder.build(0, all.queryEnd);
  // The first list after a copy that runs its corruptions.
  int64_t copy = -1, source = -1;
  for (size_t l = 0; l < set.groups.size() && source < 0; ++l) {
    const CandidateGroup &g = set.groups[l];
    if (plan.positiveOnly(g.query, g.mode))
      copy = static_cast<int64_t>(l);
    else if (copy >= 0 && g.end - g.begin > 1)
      source = static_cast<int64_t>(l);
  }
  ASSERT_GE(source, 0);
  const int64_t at = set.groups[static_cast<size_t>(source)].begin + 1;
  const Triple nan = set.candidates[static_cast<size_t>(at)].triple;
  std::string errors[2];
  for (int share = 0; share < 2; ++share) {
    NanTripleBackend backend(nan);
    RunSessionOptions o = sessionOptions("countries_s1", 20);
    o.shareLists = share == 1;
    o.blockCandidates = 700;
    RunSession session(v10Program(), backend, "cpu", o);
    errors[share] = errorOf([&] { session.evaluate(); });
  }
  EXPECT_NE(
      errors[1].find(fmt::format("non-finite logit for candidate {}:", at)),
      std::string::npos)
      << errors[1];
  EXPECT_EQ(errors[0], errors[1]);
}

TEST(SharedLists, TheFlagTurnsItOff) {
  // countries_s1's first 20 queries: 9,647 candidates, 3,379 shared.
  RunSessionOptions o = sessionOptions("countries_s1", 20);
  o.keepOutcomes = true;
  OneSizeBackend on, off;
  o.blockCandidates = 500;
  RunSession a(v10Program(), on, "cpu", o);
  const RunOutput shared = a.evaluate();
  o.shareLists = false;
  RunSession b(v10Program(), off, "cpu", o);
  const RunOutput own = b.evaluate();
  expectSameOutcomes(shared.outcomes, own.outcomes);
  // The blocks are cut by what runs (a run counts its padding).
  int64_t ranOn = 0, ranOff = 0;
  for (int64_t size : on.sizes)
    ranOn += size;
  for (int64_t size : off.sizes)
    ranOff += size;
  EXPECT_GE(ranOff, 9647);
  EXPECT_LT(ranOn, ranOff - 3000);
}

} // namespace
} // namespace proofc::test
