//===- StreamingTest.cpp - Blocks never change a result; memory is bounded
//-===//
//
// The streamed run (BlockPipeline.h, docs/scale-out.md "Streaming"): any
// block size gives the outcomes, the outcomes file's bytes and the metrics
// of one block, bit for bit; a run that keeps no outcome reports the same;
// blocks are built from the layout alone and equal the whole set's slices;
// the first non-finite logit is named whatever block finishes first; and a
// run's peak memory does not grow with its number of queries.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "runtime/session/InstantBackend.h"
#include "session/SessionAccess.h"

#include "host/HostBackend.h"
#include "outputs/Report.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/QueryRanges.h"
#include "support/FileIO.h"
#include "tooling/Merge.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace proofc::test {
namespace {

TEST(Streaming, AnyBlockSizeEqualsOneBlockBitForBit) {
  TempDir dir;
  HostBackend backend(HostBackendOptions{2});
  RunSessionOptions base = sessionOptions("nations", 25);
  base.rankMetrics.perRelation = true;
  base.rankMetrics.bootstrapSamples = 20;
  RunOutput reference;
  std::string referenceTsv, referenceReport;
  // 0: the default (one block here); 1: every query its own block.
  for (int64_t block : {int64_t{0}, int64_t{1}, int64_t{37}, int64_t{500}}) {
    for (bool keep : {true, false}) {
      SCOPED_TRACE(fmt::format("block {}, keep {}", block, keep));
      RunSessionOptions o = base;
      o.blockCandidates = block;
      o.keepOutcomes = keep;
      o.threads = 3;
      o.report = dir.file(fmt::format("r{}{}.json", block, keep));
      o.outcomes = dir.file(fmt::format("o{}{}.tsv", block, keep));
      RunSession session(v10Program(), backend, "cpu", o);
      const RunOutput out = session.evaluate();
      session.writeOutputs(out, stdout);
      EXPECT_EQ(out.outcomes.empty(), !keep);
      if (block == 0 && keep) {
        reference = out;
        referenceTsv = o.outcomes;
        referenceReport = o.report;
        ASSERT_GT(out.report.metrics.proved, 0);
        continue;
      }
      if (keep)
        expectSameOutcomes(reference.outcomes, out.outcomes);
      EXPECT_EQ(readFile(referenceTsv), readFile(o.outcomes));
      for (const char *key : {"metrics", "rank_metrics", "pykeen"})
        EXPECT_EQ(sectionOf(referenceReport, key), sectionOf(o.report, key))
            << key;
      EXPECT_EQ(nlohmann::json::parse(readFile(o.report))["outcomes"]["sha256"],
                nlohmann::json::parse(
                    readFile(referenceReport))["outcomes"]["sha256"]);
    }
  }
}

TEST(Streaming, OneRunSizeBackendsGetPaddedBlocksOfEqualOutcomes) {
  TempDir dir;
  RunSessionOptions o = sessionOptions("kinship", 20); // uneven lists
  o.keepOutcomes = true;
  o.outcomes = dir.file("one.tsv");
  InstantBackend plain;
  RunSession one(v10Program(), plain, "cpu", o);
  const RunOutput reference = one.evaluate();
  one.writeOutputs(reference, stdout);

  o.blockCandidates = 500;
  o.outcomes = dir.file("padded.tsv");
  OneSizeBackend backend;
  RunSession padded(v10Program(), backend, "cpu", o);
  const RunOutput out = padded.evaluate();
  padded.writeOutputs(out, stdout);
  expectSameOutcomes(reference.outcomes, out.outcomes);
  EXPECT_EQ(readFile(dir.file("one.tsv")), readFile(o.outcomes));
  EXPECT_EQ(out.report.metrics.both.mrr, reference.report.metrics.both.mrr);

  // Every block of at least 3/4 of the largest ran at the largest's size
  // with one shapeId; a shorter one (the last) as it is, with none.
  const std::vector<QueryRange> blocks = splitRange(
      padded.layout(), wholeRange(padded.layout()), o.blockCandidates);
  ASSERT_GT(blocks.size(), 4u);
  int64_t largest = 0;
  for (const QueryRange &b : blocks)
    largest = std::max(largest, b.candidates());
  ASSERT_EQ(backend.sizes.size(), blocks.size());
  int padded_ = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (4 * blocks[i].candidates() >= 3 * largest) {
      EXPECT_EQ(backend.sizes[i], largest) << i;
      EXPECT_EQ(backend.shapes[i], backend.shapes[0]) << i;
      EXPECT_NE(backend.shapes[i], 0u) << i;
      padded_ += blocks[i].candidates() < largest;
    } else {
      EXPECT_EQ(backend.sizes[i], blocks[i].candidates()) << i;
      EXPECT_EQ(backend.shapes[i], 0u) << i;
    }
  }
  EXPECT_GT(padded_, 0) << "no block was padded: the test tests nothing";
}

TEST(Streaming, BlocksAreTheWholeSetsSlices) {
  const Dataset ds = loadDataset(dataDir("kinship"));
  for (int64_t corruptions : {int64_t{0}, int64_t{13}}) {
    CandidateOptions co;
    co.corruptions = corruptions;
    co.seed = 5;
    co.queries = 40;
    const CandidateSet whole = buildCandidates(ds, co);
    const CandidateBuilder builder(ds, co);
    const CandidateLayout &layout = builder.layout();
    const CandidateLayout fromSet = layoutOf(whole);
    EXPECT_EQ(layout.groupBegin, fromSet.groupBegin);
    EXPECT_EQ(layout.queryCount(), 40);
    EXPECT_EQ(layout.candidateCount(),
              static_cast<int64_t>(whole.candidates.size()));
    EXPECT_EQ(wholeRange(layout), wholeRange(whole));
    for (int64_t target : {1, 100, 1000})
      EXPECT_EQ(splitRange(layout, wholeRange(layout), target),
                splitRange(whole, wholeRange(whole), target));
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_EQ(shardRange(layout, i, 3), shardRange(whole, i, 3));
    for (const QueryRange &r : splitRange(layout, wholeRange(layout), 300)) {
      const CandidateSet block = builder.build(r.queryBegin, r.queryEnd);
      ASSERT_EQ(static_cast<int64_t>(block.candidates.size()), r.candidates());
      EXPECT_EQ(block.queries, whole.queries);
      for (int64_t i = 0; i < r.candidates(); ++i) {
        const Candidate &a = block.candidates[static_cast<size_t>(i)];
        const Candidate &b =
            whole.candidates[static_cast<size_t>(r.candidateBegin + i)];
        ASSERT_TRUE(a.triple == b.triple && a.query == b.query &&
                    a.mode == b.mode && a.entity == b.entity)
            << i;
      }
      ASSERT_EQ(static_cast<int64_t>(block.groups.size()), 2 * r.queries());
      EXPECT_EQ(block.groups.front().begin, 0);
      EXPECT_EQ(block.groups.front().query, r.queryBegin);
      EXPECT_EQ(block.groups.back().end, r.candidates());
    }
    EXPECT_THROW(builder.build(3, 41), Error);
  }
}

TEST(Streaming, TheFirstNonFiniteLogitIsNamedWhateverTheBlocks) {
  std::string first;
  for (int64_t block : {int64_t{0}, int64_t{1}, int64_t{20}}) {
    InstantBackend backend;
    backend.nanQuery = 7;
    RunSessionOptions o = sessionOptions("nations", 20);
    o.blockCandidates = block;
    o.keepOutcomes = false;
    RunSession session(v10Program(), backend, "cpu", o);
    const std::string error = errorOf([&] { session.evaluate(); });
    EXPECT_NE(error.find("non-finite logit for candidate "), std::string::npos)
        << error;
    EXPECT_NE(error.find(": query 7 ("), std::string::npos) << error;
    if (first.empty())
      first = error;
    EXPECT_EQ(error, first) << block;
  }
}

TEST(Streaming, RangesTalliedEqualTheWholeRun) {
  HostBackend backend(HostBackendOptions{2});
  SessionOptions so;
  so.data = dataDir("nations");
  so.queries = 12;
  so.blockCandidates = 50;
  Session session = SessionAccess::make(v10Program(), {&backend}, "cpu", so);
  const WeightsFile weights = session.loadWeights(weightsFile("nations"));
  const SessionResult whole = session.evaluate(weights);
  const QueryRange all = wholeRange(session.layout());
  std::vector<PairRanks> pairs;
  OutcomeCounts counts;
  EvaluateControl quiet;
  quiet.keepOutcomes = false;
  for (const QueryRange &r : splitRange(session.layout(), all, 120)) {
    const RangeResult part = session.evaluateRange(weights, r, quiet);
    EXPECT_TRUE(part.outcomes.empty());
    pairs.insert(pairs.end(), part.pairs.begin(), part.pairs.end());
    counts.add(part.counts);
  }
  const SessionResult tallied =
      session.finish(weights, all, pairs, counts, {}, 1, 1);
  EXPECT_EQ(nlohmann::json::parse(tallied.reportJson())["metrics"],
            nlohmann::json::parse(whole.reportJson())["metrics"]);
  EXPECT_EQ(nlohmann::json::parse(tallied.reportJson())["rank_metrics"],
            nlohmann::json::parse(whole.reportJson())["rank_metrics"]);
  pairs.pop_back();
  EXPECT_THROW(session.finish(weights, all, pairs, counts, {}, 1, 1), Error);
}

/// The peak resident memory (kB) of a child process that calls `work`; -1
/// when it failed (its error printed).
long peakKilobytesOf(const std::function<void()> &work) {
  const pid_t child = ::fork();
  if (child == 0) {
    int status = 0;
    try {
      work();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s\n", e.what());
      status = 1;
    }
    ::_exit(status);
  }
  int status = 0;
  struct rusage usage{};
  if (child < 0 || ::wait4(child, &status, 0, &usage) != child ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return usage.ru_maxrss;
}

/// The run options of the memory tests: the first `queries` test queries
/// of wn18rr, 500 sampled corruptions per list, blocks of 32768
/// candidates, no outcome kept.
RunSessionOptions memoryOptions(int64_t queries) {
  RunSessionOptions o = sessionOptions("wn18rr", queries);
  o.corruptions = 500;
  o.blockCandidates = 32768;
  o.keepOutcomes = false;
  o.threads = 2;
  return o;
}

/// Runs `o` on the instant backend and writes its outputs.
void runAndWrite(const RunSessionOptions &o) {
  InstantBackend backend;
  RunSession session(v10Program(), backend, "cpu", o);
  const RunOutput out = session.evaluate();
  FILE *devnull = std::fopen("/dev/null", "w");
  session.writeOutputs(out, devnull);
  std::fclose(devnull);
}

/// The peak resident memory (kB) of a child process that runs
/// memoryOptions(queries), writing the outcomes file.
long peakKilobytes(const std::string &dir, int64_t queries) {
  return peakKilobytesOf([&] {
    RunSessionOptions o = memoryOptions(queries);
    o.outcomes = dir + "/o" + std::to_string(queries) + ".tsv";
    o.report = dir + "/r" + std::to_string(queries) + ".json";
    runAndWrite(o);
  });
}

TEST(Streaming, PeakMemoryDoesNotGrowWithTheQueries) {
  if (kUnderAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer's quarantine keeps freed blocks resident "
                    "(up to 256 MB): the peak RSS grows with what a run frees";
  TempDir dir;
  // 300 queries: 300,600 candidates, 3000: 3,006,000 (a whole-pool run
  // held 36 B of candidate and outcome and ~70 B of outcomes text for each:
  // some 280 MB more; streamed, both have the same full blocks in flight,
  // and what grows with the queries is 104 B per query).
  const long small = peakKilobytes(dir.path(), 300);
  const long large = peakKilobytes(dir.path(), 3000);
  ASSERT_GT(small, 0);
  ASSERT_GT(large, 0);
  std::printf("[ memory   ] peak RSS: 300 queries %ld kB, 3000 queries %ld "
              "kB\n",
              small, large);
  EXPECT_GT(std::filesystem::file_size(dir.file("o3000.tsv")), 150u << 20);
  EXPECT_LT(large - small, 12 * 1024) << "kB";
}

/// Shard `index` of 2 of memoryOptions(queries) to dir/s<queries>-<index>.part
/// (shard 1 through a checkpoint).
void runShard(const std::string &dir, int64_t queries, int64_t index) {
  RunSessionOptions o = memoryOptions(queries);
  o.shardIndex = index;
  o.shardCount = 2;
  o.part = fmt::format("{}/s{}-{}.part", dir, queries, index);
  if (index == 1) {
    o.checkpoint = fmt::format("{}/ck{}", dir, queries);
    o.checkpointEvery = 100000;
  }
  runAndWrite(o);
}

TEST(Streaming, ShardAndMergePeakMemoryDoesNotGrowWithTheQueries) {
  if (kUnderAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer's quarantine keeps freed blocks resident";
  TempDir dir;
  // 300 queries: 300,600 candidates, 3000: 3,006,000. With no outcomes file
  // a shard, a checkpointed shard and a merge keep the tally (96 B a query)
  // and no outcome: a shard used to keep 12 B an outcome, its part 9 B, and
  // merge read whole parts and built every candidate (24 B each): some
  // 100 MB more at 3000 queries.
  long shard[2] = {0, 0}, merge[2] = {0, 0};
  const int64_t counts[2] = {300, 3000};
  for (int k = 0; k < 2; ++k) {
    const int64_t queries = counts[k];
    shard[k] = peakKilobytesOf([&] {
      runShard(dir.path(), queries, 0);
      runShard(dir.path(), queries, 1);
    });
    merge[k] = peakKilobytesOf([&] {
      MergeOptions m;
      m.parts = {fmt::format("{}/s{}-0.part", dir.path(), queries),
                 fmt::format("{}/s{}-1.part", dir.path(), queries)};
      m.report = fmt::format("{}/m{}.json", dir.path(), queries);
      FILE *devnull = std::fopen("/dev/null", "w");
      mergeParts(m, devnull);
      std::fclose(devnull);
    });
    ASSERT_GT(shard[k], 0);
    ASSERT_GT(merge[k], 0);
  }
  std::printf("[ memory   ] peak RSS: shards 300 queries %ld kB, 3000 "
              "queries %ld kB; merge %ld kB, %ld kB\n",
              shard[0], shard[1], merge[0], merge[1]);
  // The merged report is a whole run's.
  RunSessionOptions whole = memoryOptions(3000);
  whole.report = dir.file("whole.json");
  runAndWrite(whole);
  for (const char *key : {"metrics", "rank_metrics"})
    EXPECT_EQ(sectionOf(dir.file("m3000.json"), key),
              sectionOf(dir.file("whole.json"), key))
        << key;
  // The parts hold the tally: 82 B a query and the header, no outcome.
  EXPECT_LT(std::filesystem::file_size(dir.file("s3000-0.part")), 200u << 10);
  EXPECT_LT(shard[1] - shard[0], 8 * 1024) << "kB";
  EXPECT_LT(merge[1] - merge[0], 8 * 1024) << "kB";
}

} // namespace
} // namespace proofc::test
