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

#include <cstring>
#include <filesystem>
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

void expectSamePairs(const std::vector<PairRanks> &got,
                     const std::vector<PairRanks> &expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].rank, expected[i].rank) << i;
    EXPECT_EQ(got[i].listSize, expected[i].listSize) << i;
    EXPECT_EQ(got[i].query, expected[i].query) << i;
    EXPECT_EQ(got[i].mode, expected[i].mode) << i;
    EXPECT_EQ(got[i].relation, expected[i].relation) << i;
  }
}

void expectSameCounts(const OutcomeCounts &a, const OutcomeCounts &b) {
  EXPECT_EQ(a.candidates, b.candidates);
  EXPECT_EQ(a.proved, b.proved);
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_EQ(a.truncated, b.truncated);
  EXPECT_EQ(a.depthSum, b.depthSum);
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
    expectSamePairs(got, expected);
    expectSameCounts(gotCounts, expectedCounts);
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

/// The exchange of an MPI launch, in one process: every shard's bytes for
/// every other, parsed; the tallies each shard receives.
std::vector<std::vector<SharedTally>>
exchange(const std::vector<const CrossShardTallies *> &cross) {
  const int64_t n = static_cast<int64_t>(cross.size());
  std::vector<std::vector<std::string>> bytes;
  for (const CrossShardTallies *c : cross)
    bytes.push_back(SharedLists::bytesForShards(*c, n));
  std::vector<std::vector<SharedTally>> imported(cross.size());
  for (size_t r = 0; r < cross.size(); ++r)
    for (size_t from = 0; from < cross.size(); ++from) {
      EXPECT_TRUE(from != r || bytes[from][r].empty()) << "sent to itself";
      if (from != r)
        for (SharedTally &t :
             SharedLists::parseTallies(bytes[from][r], "the test's bytes"))
          imported[r].push_back(std::move(t));
    }
  return imported;
}

TEST(SharedLists, AcrossShardsEveryKeyRunsOnceAndTheTalliesAreTheWholeRuns) {
  // kinship's full ranking (InstantBackend: tied scores, every status, the
  // -inf positives) cut into 2, 3 and 5 shards, each tallied block by
  // block with the keys it shares with other shards run by their owner
  // only: after the exchange the shards' pairs and counts, concatenated,
  // are the whole pool's unshared ones bit for bit, and the shards run
  // together exactly what one process sharing the whole pool runs.
  Pool pool("kinship", 200, 0);
  const CandidateBuilder &builder = pool.builder;
  const CandidateLayout &layout = builder.layout();
  const QueryRange all = wholeRange(layout);
  const ProgramSpec program = v10Program();
  const TensorMap noWeights;
  InstantBackend instant;
  const CandidateSet whole = builder.build(all.queryBegin, all.queryEnd);
  BackendTimings t;
  const std::vector<Outcome> wholeOutcomes =
      instant.run(EvalInputs{program, pool.ds, noWeights, whole}, t);
  const std::vector<PairRanks> expected = rankPairs(whole, wholeOutcomes);
  OutcomeCounts expectedCounts;
  expectedCounts.add(wholeOutcomes);
  const SharedLists onePlan(builder, all, true, 0, ~uint64_t{0});
  const int64_t oneRuns = onePlan.runLayout().candidateCount();
  for (int64_t n : {int64_t{2}, int64_t{3}, int64_t{5}}) {
    SCOPED_TRACE(fmt::format("{} shards", n));
    const ShardSharing sharing = SharedLists::acrossShards(builder, n);
    ASSERT_FALSE(sharing.keys.empty());
    std::vector<QueryRange> shards;
    std::vector<CrossShardTallies> cross;
    std::vector<std::vector<PairRanks>> pairs;
    std::vector<OutcomeCounts> counts;
    int64_t runs = 0, mostRuns = 0, mostLocalRuns = 0, pending = 0;
    for (int64_t r = 0; r < n; ++r) {
      shards.push_back(shardRange(layout, r, n));
      const QueryRange &range = shards.back();
      SharedLists plan(builder, range, true, 0, ~uint64_t{0}, &sharing,
                       static_cast<int32_t>(r));
      const int64_t shardRuns =
          queryRange(plan.runLayout(), range.queryBegin, range.queryEnd)
              .candidates();
      runs += shardRuns;
      mostRuns = std::max(mostRuns, shardRuns);
      const SharedLists local(builder, range, true, 0, ~uint64_t{0});
      mostLocalRuns =
          std::max(mostLocalRuns, queryRange(local.runLayout(),
                                             range.queryBegin, range.queryEnd)
                                      .candidates());
      pairs.emplace_back();
      counts.emplace_back();
      for (int64_t q = range.queryBegin; q < range.queryEnd; q += 7) {
        const int64_t end = std::min(range.queryEnd, q + 7);
        const CandidateSet run = plan.runSet(builder, q, end, 0);
        plan.tally(run,
                   instant.run(EvalInputs{program, pool.ds, noWeights, run}, t),
                   pairs.back(), counts.back());
      }
      cross.push_back(plan.takeCrossShard());
      pending += static_cast<int64_t>(cross.back().pending.size());
    }
    EXPECT_GT(pending, 0);
    EXPECT_EQ(runs, oneRuns);
    EXPECT_LT(mostRuns, mostLocalRuns); // the shards' longest run shortens
    std::vector<const CrossShardTallies *> sent;
    for (const CrossShardTallies &c : cross)
      sent.push_back(&c);
    const std::vector<std::vector<SharedTally>> imported = exchange(sent);
    for (size_t r = 0; r < shards.size(); ++r)
      SharedLists::resolveCrossShard(
          cross[r], imported[r], 2 * shards[r].queryBegin, pairs[r], counts[r]);
    std::vector<PairRanks> got;
    OutcomeCounts gotCounts;
    for (size_t r = 0; r < shards.size(); ++r) {
      got.insert(got.end(), pairs[r].begin(), pairs[r].end());
      gotCounts.add(counts[r]);
    }
    expectSamePairs(got, expected);
    expectSameCounts(gotCounts, expectedCounts);
  }
}

TEST(SharedLists, AnMpiRanksRunSessionResolvesToTheShardsOwnReport) {
  // RunSession as an MPI rank runs it (RunSessionOptions::crossShard, the
  // MPI launch aside): three ranks on the host backend, exchanged in
  // process; each rank's pairs, counts and report then equal its shard
  // run sharing only within itself.
  constexpr int64_t kRanks = 3;
  auto options = [](int64_t rank, bool cross) {
    RunSessionOptions o = sessionOptions("countries_s1", 24);
    o.corruptions = 0;
    o.blockCandidates = 500;
    o.shardIndex = rank;
    o.shardCount = kRanks;
    o.mpiRanks = kRanks;
    o.keepOutcomes = false;
    o.crossShard = cross;
    return o;
  };
  std::vector<RunOutput> local, cross;
  std::vector<std::unique_ptr<RunSession>> sessions;
  std::vector<std::unique_ptr<CountingHostBackend>> backends;
  int64_t ranLocal = 0, ranCross = 0;
  for (int64_t r = 0; r < kRanks; ++r) {
    CountingHostBackend plain;
    RunSession alone(v10Program(), plain, "cpu", options(r, false));
    local.push_back(alone.evaluate());
    ranLocal += plain.ran;
    backends.push_back(std::make_unique<CountingHostBackend>());
    sessions.push_back(std::make_unique<RunSession>(
        v10Program(), *backends.back(), "cpu", options(r, true)));
    cross.push_back(sessions.back()->evaluate());
    ranCross += backends.back()->ran;
    ASSERT_TRUE(cross.back().crossShard.has_value());
  }
  EXPECT_LT(ranCross, ranLocal);
  std::vector<const CrossShardTallies *> sent;
  for (const RunOutput &out : cross)
    sent.push_back(&*out.crossShard);
  const std::vector<std::vector<SharedTally>> imported = exchange(sent);
  for (size_t r = 0; r < static_cast<size_t>(kRanks); ++r) {
    sessions[r]->resolveCrossShard(cross[r], imported[r]);
    SCOPED_TRACE(fmt::format("rank {}", r));
    expectSamePairs(cross[r].pairs, local[r].pairs);
    expectSameCounts(cross[r].counts, local[r].counts);
    EXPECT_EQ(cross[r].report.metrics.both.mrr,
              local[r].report.metrics.both.mrr);
  }
}

/// InstantBackend, counting the candidates it is given.
class CountingInstantBackend : public InstantBackend {
public:
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override {
    ran += static_cast<int64_t>(inputs.candidates.candidates.size());
    return InstantBackend::run(inputs, timings);
  }
  int64_t ran = 0;
};

TEST(SharedLists, ACheckpointedRunSharesAcrossItsRanges) {
  // kinship's full ranking in checkpoint ranges of about 1,500 candidates
  // (InstantBackend): a key several ranges hold runs in the first of them
  // and the later ones take its tally before they are recorded, so the run
  // runs what one uncheckpointed process runs and reports the same; a run
  // resumed after its first ranges' files were lost plans over the ranges
  // it has left and reports the same again. With an outcomes file the
  // ranges share only within themselves, with the same report.
  TempDir dir;
  auto run = [&](const std::string &tag, const std::string &checkpoint,
                 bool outcomes, int64_t &ran) {
    RunSessionOptions o = sessionOptions("kinship", 160);
    o.corruptions = 0;
    o.keepOutcomes = false;
    o.rankMetrics.perRelation = true;
    o.checkpoint = checkpoint;
    o.checkpointEvery = 1500;
    o.report = dir.file(tag + ".json");
    if (outcomes)
      o.outcomes = dir.file(tag + ".tsv");
    CountingInstantBackend backend;
    RunSession session(v10Program(), backend, "cpu", o);
    session.writeOutputs(session.evaluate(), stdout);
    ran = backend.ran;
    return nlohmann::json::parse(readFile(o.report));
  };
  int64_t plainRan = 0, ckRan = 0, resumedRan = 0, rowsRan = 0;
  const nlohmann::json plain = run("plain", "", false, plainRan);
  const std::string ck = dir.file("ck");
  const nlohmann::json checkpointed = run("ck", ck, false, ckRan);
  EXPECT_EQ(ckRan, plainRan);
  // Lose the files of the first three ranges (which own most keys).
  std::vector<std::string> ranges;
  for (const auto &e : std::filesystem::directory_iterator(ck))
    if (e.path().filename().string().rfind("range-", 0) == 0)
      ranges.push_back(e.path().string());
  std::sort(ranges.begin(), ranges.end(), [](const auto &a, const auto &b) {
    auto first = [](const std::string &p) {
      const std::string name = std::filesystem::path(p).filename().string();
      return std::stoll(name.substr(6));
    };
    return first(a) < first(b);
  });
  ASSERT_GT(ranges.size(), 6u);
  for (size_t i = 0; i < 3; ++i)
    std::filesystem::remove(ranges[i]);
  const nlohmann::json resumed = run("resumed", ck, false, resumedRan);
  EXPECT_GT(resumedRan, 0);
  EXPECT_LT(resumedRan, plainRan);
  const nlohmann::json withRows =
      run("rows", dir.file("ck-rows"), true, rowsRan);
  EXPECT_GT(rowsRan, plainRan); // within each range only
  for (const char *key : {"metrics", "rank_metrics", "pykeen"}) {
    EXPECT_EQ(checkpointed[key].dump(), plain[key].dump()) << key;
    EXPECT_EQ(resumed[key].dump(), plain[key].dump()) << key;
    EXPECT_EQ(withRows[key].dump(), plain[key].dump()) << key;
  }
}

void expectError(const std::function<void()> &fn, const std::string &part) {
  const std::string message = errorOf(fn);
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

TEST(SharedLists, TalliesFromAnotherShardAreChecked) {
  CrossShardTallies cross;
  cross.exports.push_back(
      {SharedTally{7, {3, 2, 1, 0, 12}, {-2.5, -1.0}}, {1}});
  const std::string good = SharedLists::bytesForShards(cross, 2)[1];
  const std::vector<SharedTally> back =
      SharedLists::parseTallies(good, "bytes");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].key, 7);
  EXPECT_EQ(back[0].finite, (std::vector<double>{-2.5, -1.0}));
  EXPECT_EQ(back[0].counts.depthSum, 12);
  expectError([&] { SharedLists::parseTallies(good.substr(0, 20), "bytes"); },
              "bytes: 20 bytes end inside a tally");
  expectError([&] { SharedLists::parseTallies(good + "x", "bytes"); },
              "bytes: 1 bytes after the last tally");
  std::string unsorted = good;
  std::swap_ranges(unsorted.end() - 16, unsorted.end() - 8, unsorted.end() - 8);
  expectError([&] { SharedLists::parseTallies(unsorted, "bytes"); },
              "bytes: key 7's scores are not ascending");
  std::string miscounted = good;
  const int64_t proved = 4; // of 3 candidates: 2 proved, 1 failed
  std::memcpy(miscounted.data() + 8 + 2 * 8, &proved, sizeof proved);
  expectError([&] { SharedLists::parseTallies(miscounted, "bytes"); },
              "bytes: key 7's tally counts 3 candidates as 4 proved");
  expectError([&] { SharedLists::bytesForShards(cross, 1); },
              "key 7's tally is owed to shard 1 of 1");
  // A list waiting for a tally that did not come, or one of another size.
  CrossShardTallies waiting;
  waiting.pending.push_back({1, 7, 4, -1.0});
  std::vector<PairRanks> pairs(2);
  OutcomeCounts counts;
  expectError(
      [&] {
        SharedLists::resolveCrossShard(waiting, std::vector<SharedTally>{}, 0,
                                       pairs, counts);
      },
      "list 1 takes key 7's corruptions from another shard, which sent no "
      "tally of it");
  SharedLists::resolveCrossShard(waiting, back, 0, pairs, counts);
  // Score -1.0 among {-2.5, -1.0, -inf}: none greater, one equal.
  EXPECT_EQ(pairs[1].rank, (std::array<double, 3>{1.0, 2.0, 1.5}));
  EXPECT_EQ(counts.candidates, 3);
  waiting.pending[0].listSize = 5;
  expectError(
      [&] { SharedLists::resolveCrossShard(waiting, back, 0, pairs, counts); },
      "key 7's tally from another shard counts 3 corruptions");
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
