//===- ScaleOutTest.cpp - Query ranges, part files, ranged evaluation -----===//
//
// docs/scale-out.md: shards and checkpoint ranges are contiguous blocks of
// whole queries that cover every query exactly once; a part file keeps
// every outcome bit (and refuses a damaged one by name); evaluating a pool
// range by range and finishing it equals one evaluate() bit for bit.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "session/SessionAccess.h"

#include "host/HostBackend.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/Session.h"
#include "support/FileIO.h"
#include "tooling/PartFile.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

using namespace proofc;
using namespace proofc::test;

namespace {

CandidateSet kinshipSet(int64_t queries, int64_t corruptions) {
  CandidateOptions o;
  o.queries = queries;
  o.corruptions = corruptions;
  o.seed = 1;
  return buildCandidates(loadDataset(dataDir("kinship")), o);
}

/// kinship's first 40 queries with every filtered corruption (lists of
/// uneven sizes): the set, its layout, and queries [3, 37) of it.
struct UnevenPool {
  Dataset dataset = loadDataset(dataDir("kinship"));
  CandidateOptions options = [] {
    CandidateOptions o;
    o.queries = 40;
    return o;
  }();
  CandidateSet set = buildCandidates(dataset, options);
  CandidateBuilder builder{dataset, options};
  const CandidateLayout &layout = builder.layout();
  QueryRange within = queryRange(layout, 3, 37);
};

/// Every query of `set` in exactly one of `ranges`, in order, each range's
/// candidates those of its queries' groups.
void expectPartition(const CandidateSet &set, const QueryRange &within,
                     const std::vector<QueryRange> &ranges) {
  int64_t query = within.queryBegin, candidate = within.candidateBegin;
  for (const QueryRange &r : ranges) {
    ASSERT_EQ(r.queryBegin, query);
    ASSERT_EQ(r.candidateBegin, candidate);
    ASSERT_LE(r.queryBegin, r.queryEnd);
    for (const CandidateGroup &g : set.groups)
      if (g.query >= r.queryBegin && g.query < r.queryEnd) {
        EXPECT_GE(g.begin, r.candidateBegin);
        EXPECT_LE(g.end, r.candidateEnd);
      }
    query = r.queryEnd;
    candidate = r.candidateEnd;
  }
  EXPECT_EQ(query, within.queryEnd);
  EXPECT_EQ(candidate, within.candidateEnd);
}

TEST(QueryRanges, ShardsCoverEveryQueryOnceForAnyCount) {
  const CandidateSet set = kinshipSet(10, 7);
  const QueryRange all = wholeRange(set);
  EXPECT_EQ(all.queryEnd, 10);
  EXPECT_EQ(all.candidateEnd, static_cast<int64_t>(set.candidates.size()));
  for (int64_t n = 1; n <= 13; ++n) {
    std::vector<QueryRange> shards;
    for (int64_t i = 0; i < n; ++i)
      shards.push_back(shardRange(set, i, n));
    expectPartition(set, all, shards);
  }
  // Query counts differ by at most one between shards.
  EXPECT_EQ(shardRange(set, 0, 3).queries(), 3);
  EXPECT_EQ(shardRange(set, 2, 3).queries(), 4);
  EXPECT_EQ(errorOf([&] { shardRange(set, 3, 3); }),
            "--shard 3/3: the shard index must be in 0..2");
  EXPECT_EQ(errorOf([&] { shardRange(set, 0, 0); }),
            "--shard 0/0: the shard count must be 1 to 16777216");
  EXPECT_EQ(errorOf([&] { queryRange(set, 4, 11); }),
            "query range [4, 11) is not within the 10 queries");
}

TEST(QueryRanges, SplitRangeCutsWholeQueriesOfAtLeastTheTarget) {
  const CandidateSet set = kinshipSet(10, 7);
  const QueryRange within = queryRange(set, 2, 9);
  for (int64_t target : {0, 1, 15, 16, 40, 1000}) {
    const std::vector<QueryRange> ranges = splitRange(set, within, target);
    expectPartition(set, within, ranges);
    for (size_t k = 0; k + 1 < ranges.size(); ++k)
      EXPECT_GE(ranges[k].candidates(), target) << target;
  }
  EXPECT_EQ(splitRange(set, within, 1).size(), 7u); // one query each
  EXPECT_EQ(splitRange(set, within, 0).size(), 1u);
  EXPECT_TRUE(splitRange(set, queryRange(set, 5, 5), 10).empty());
}

TEST(QueryRanges, StreamBlocksEndSeveralWorkersTogether) {
  const UnevenPool pool;
  const CandidateSet &set = pool.set;
  const CandidateLayout &layout = pool.layout;
  const QueryRange within = pool.within;
  const int64_t target = within.candidates() / 5 + 1; // 5 blocks
  const std::vector<QueryRange> alone = splitRange(layout, within, target);
  ASSERT_EQ(alone.size(), 5u);
  // One worker, or a count already a multiple of the workers: splitRange's.
  EXPECT_EQ(streamBlocks(layout, within, target, 1), alone);
  EXPECT_EQ(streamBlocks(layout, within, target, 5), alone);
  // Otherwise the next multiple of the workers, nearly equal.
  for (int64_t workers : {2, 3, 4}) {
    SCOPED_TRACE(workers);
    const std::vector<QueryRange> blocks =
        streamBlocks(layout, within, target, workers);
    const int64_t count = (5 + workers - 1) / workers * workers;
    EXPECT_EQ(blocks, splitRangeEvenly(layout, within, count));
    EXPECT_EQ(static_cast<int64_t>(blocks.size()), count);
    expectPartition(set, within, blocks);
  }
  // One block stays one, whatever the workers.
  EXPECT_EQ(streamBlocks(layout, within, 0, 4).size(), 1u);
}

TEST(QueryRanges, SplitRangeEvenlyCutsNearlyEqualWholeQueries) {
  const UnevenPool pool;
  const CandidateSet &set = pool.set;
  const CandidateLayout &layout = pool.layout;
  const QueryRange within = pool.within;
  int64_t largestQuery = 0;
  for (int64_t q = within.queryBegin; q < within.queryEnd; ++q)
    largestQuery = std::max(largestQuery, layout.firstCandidateOf(q + 1) -
                                              layout.firstCandidateOf(q));
  for (int64_t count : {1, 2, 3, 4, 8}) {
    SCOPED_TRACE(count);
    const std::vector<QueryRange> ranges =
        splitRangeEvenly(layout, within, count);
    ASSERT_EQ(static_cast<int64_t>(ranges.size()), count);
    expectPartition(set, within, ranges);
    const double even =
        static_cast<double>(within.candidates()) / static_cast<double>(count);
    for (const QueryRange &r : ranges)
      EXPECT_LE(std::abs(static_cast<double>(r.candidates()) - even),
                static_cast<double>(largestQuery))
          << r.queryBegin;
  }
  // As many ranges as queries or more: two cuts may fall in one query
  // (lists differ in size), and no range is empty.
  for (int64_t count : {34, 100}) {
    const std::vector<QueryRange> ranges =
        splitRangeEvenly(layout, within, count);
    expectPartition(set, within, ranges);
    EXPECT_LE(ranges.size(), 34u);
    EXPECT_GE(ranges.size(), 20u);
    for (const QueryRange &r : ranges)
      EXPECT_GT(r.queries(), 0);
  }
  EXPECT_TRUE(splitRangeEvenly(layout, queryRange(layout, 5, 5), 4).empty());
  EXPECT_NE(errorOf([&] {
              splitRangeEvenly(layout, within, 0);
            }).find("into 0 ranges"),
            std::string::npos);
}

/// Outcome rows of samplePart()'s counts (4 candidates: 1 proved, 2
/// failed, 1 truncated, depths adding up to 27).
constexpr const char *kSampleRows = "0\thead\te1\tproved\t3\t-1.5\n"
                                    "0\thead\te2\tfailed\t8\t-inf\n"
                                    "0\ttail\te3\tfailed\t8\t-inf\n"
                                    "0\ttail\te4\ttruncated\t8\t-inf\n";

PartFile samplePart() {
  PartFile p;
  p.kind = "range";
  p.identity.programSha256 = "sha256:aa";
  p.identity.weightsSha256 = "sha256:bb";
  p.identity.datasetFingerprint = "sha256:cc";
  p.identity.split = "test";
  p.identity.corruptions = 100;
  p.identity.seed = ~uint64_t{0};
  p.identity.queries = 100;
  p.range = {3, 5, 10, 14};
  p.totalQueries = 9;
  p.totalCandidates = 30;
  // Ranks with every bit that matters: halves, a list of one.
  p.pairs = {{3, Mode::Head, 2, 1, {1, 1, 1}},
             {3, Mode::Tail, 2, 1, {1, 1, 1}},
             {4, Mode::Head, 7, 1, {1, 1, 1}},
             {4, Mode::Tail, 7, 1, {1, 1, 1}}};
  p.pairs[1].listSize = 3;
  p.pairs[1].rank = {1, 3, 2};
  p.pairs[3].listSize = 1 + (int64_t{1} << 40);
  p.pairs[3].rank = {2, 1e12, 0.5 * (2 + 1e12)};
  p.counts = {4, 1, 2, 1, 27};
  return p;
}

TEST(PartFile, RoundTripsEveryBit) {
  const PartFile p = samplePart();
  const std::string bytes = serializePart(p);
  EXPECT_EQ(bytes.rfind("proofc-part 3\n", 0), 0u);
  const PartFile q = parsePart(bytes, "x.part");
  EXPECT_EQ(q.kind, "range");
  EXPECT_TRUE(q.range == p.range);
  EXPECT_EQ(q.identity.seed, p.identity.seed);
  EXPECT_EQ(q.identity.sha256(), p.identity.sha256());
  EXPECT_FALSE(q.hasRows);
  ASSERT_EQ(q.pairs.size(), p.pairs.size());
  for (size_t i = 0; i < p.pairs.size(); ++i) {
    EXPECT_EQ(q.pairs[i].query, p.pairs[i].query);
    EXPECT_EQ(q.pairs[i].mode, p.pairs[i].mode);
    EXPECT_EQ(q.pairs[i].relation, p.pairs[i].relation);
    EXPECT_EQ(q.pairs[i].listSize, p.pairs[i].listSize);
    EXPECT_EQ(std::memcmp(q.pairs[i].rank.data(), p.pairs[i].rank.data(), 24),
              0);
  }
  EXPECT_EQ(q.counts.candidates, 4);
  EXPECT_EQ(q.counts.proved, 1);
  EXPECT_EQ(q.counts.failed, 2);
  EXPECT_EQ(q.counts.truncated, 1);
  EXPECT_EQ(q.counts.depthSum, 27);
}

TEST(PartFile, WriterStreamsRowsReaderLocatesThem) {
  const TempDir tmp;
  const std::string dir = tmp.path();
  PartFile p = samplePart();
  p.kind = "shard";
  p.report = {{"timings", nlohmann::json::object()}};
  const std::string path = dir + "/s.part";
  {
    PartWriter writer(path, /*rows=*/true);
    writer.appendRows(std::string(kSampleRows).substr(0, 20));
    writer.appendRows(std::string(kSampleRows).substr(20));
    writer.commit(p);
  }
  const uint64_t rowsBytes = std::strlen(kSampleRows);
  EXPECT_TRUE(p.hasRows);
  EXPECT_EQ(p.rows.bytes, rowsBytes);
  const PartFile q = readPart(path);
  ASSERT_TRUE(q.hasRows);
  EXPECT_EQ(q.rows.offset, 14u);
  EXPECT_EQ(q.rows.bytes, rowsBytes);
  EXPECT_EQ(q.pairs.size(), 4u);
  std::string rows;
  copyRows({q.rows}, [&](std::string_view b) { rows += b; }, 3);
  EXPECT_EQ(rows, kSampleRows);
  // The same bytes parse in memory, the rows' hash checked there.
  std::string bytes = readFile(path);
  EXPECT_EQ(parsePart(bytes, "m.part").rows.sha256, q.rows.sha256);
  bytes[14] = '1'; // query 0 -> 1: still a row, of other bytes
  EXPECT_EQ(errorOf([&] { parsePart(bytes, "m.part"); }),
            "m.part: the outcome rows' SHA-256 does not match the header (the "
            "file is damaged)");
  writeAtomically(dir + "/d.part", bytes);
  EXPECT_EQ(errorOf([&] {
              copyRows({readPart(dir + "/d.part").rows},
                       [](std::string_view) {});
            }),
            dir + "/d.part: the outcome rows' SHA-256 does not match the "
                  "header (the file is damaged)");
  // A writer destroyed before its commit leaves nothing.
  {
    PartWriter gone(dir + "/gone.part", true);
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/gone.part"));
}

TEST(PartFile, DamageIsRefusedByName) {
  const std::string bytes = serializePart(samplePart());
  std::string rank = bytes;
  rank[14 + 41 + 17] ^= 1; // a bit of the second record's first rank
  EXPECT_EQ(errorOf([&] { parsePart(rank, "x.part"); }),
            "x.part: the tally's SHA-256 does not match the header (the "
            "file is damaged)");
  std::string inputs = bytes;
  inputs.replace(inputs.find("\"seed\":"), 7, "\"seed\":1");
  EXPECT_NE(errorOf([&] { parsePart(inputs, "x.part"); }).find("x.part: "),
            std::string::npos);
  // Every older version by name.
  for (const char *version : {"1", "2"})
    EXPECT_EQ(errorOf([&] {
                parsePart(fmt::format("proofc-part {}\n{{}}\n", version),
                          "x.part");
              }),
              fmt::format("x.part: a proofc part file of version {} (this "
                          "proofc reads version 3: the parts and checkpoint "
                          "ranges of an older proofc have no checksum, or "
                          "hold outcomes, not the tally; run the shards or "
                          "the checkpoint again)",
                          version));
  EXPECT_EQ(errorOf([&] { parsePart(bytes + "x", "x.part"); }),
            "x.part: the part is cut off or damaged (its last line does not "
            "locate the header)");
  std::string extra = bytes;
  extra.insert(14, "x");
  EXPECT_EQ(errorOf([&] { parsePart(extra, "x.part"); }),
            "x.part: the part is cut off or damaged (its last line does not "
            "locate the header)");
  EXPECT_EQ(errorOf([&] { parsePart(bytes.substr(0, 100), "x.part"); }),
            "x.part: the part is cut off or damaged (its last line does not "
            "locate the header)");
  std::string counts = bytes;
  counts.replace(counts.find("\"proved\":1"), 10, "\"proved\":2");
  EXPECT_EQ(errorOf([&] { parsePart(counts, "x.part"); }),
            "x.part: the part's checksum does not match its header (the "
            "file is damaged)");
  // Behind the checksum (made right again), the header is still checked.
  EXPECT_EQ(errorOf([&] { parsePart(withPartChecksum(counts), "x.part"); }),
            "x.part: the part's counts (4 candidates: 2 proved, 2 failed, 1 "
            "truncated) are not those of its 4 candidates");
}

TEST(PartFile, TallyIsCheckedAgainstTheLayout) {
  const CandidateSet set = kinshipSet(4, 5);
  const CandidateLayout layout = layoutOf(set);
  std::vector<Outcome> outcomes(set.candidates.size());
  PartFile p;
  p.range = queryRange(layout, 1, 3);
  p.pairs =
      rankPairs(layout, p.range,
                std::vector<Outcome>(outcomes.begin() + p.range.candidateBegin,
                                     outcomes.begin() + p.range.candidateEnd));
  p.counts.candidates = p.range.candidates();
  p.counts.failed = p.range.candidates();
  checkTally(layout, p, "p.part");
  p.pairs[2].listSize += 1;
  EXPECT_EQ(errorOf([&] { checkTally(layout, p, "p.part"); }),
            "p.part: tally record 2 (query 2's head list) is not of this "
            "run's candidates");
}

TEST(PartFile, IdentityDifferenceNamesTheField) {
  const RunIdentity a = samplePart().identity;
  RunIdentity b = a;
  EXPECT_EQ(RunIdentity::difference(a, "A", b, "B"), "");
  b.factsIncludeValid = true;
  EXPECT_EQ(RunIdentity::difference(a, "A", b, "B"),
            "facts is \"train\" in A, \"train+valid\" in B");
  b = a;
  b.shardIndex = 1;
  b.shardCount = 2;
  EXPECT_EQ(RunIdentity::difference(a, "A", b, "B"),
            "shard is \"0/1\" in A, \"1/2\" in B");
  EXPECT_EQ(RunIdentity::difference(a, "A", b, "B", true),
            "the shard count is 1 in A, 2 in B");
  EXPECT_NE(a.sha256(), b.sha256());
}

TEST(Session, RangesThenFinishEqualOneEvaluate) {
  HostBackend backend(HostBackendOptions{2});
  SessionOptions o;
  o.data = dataDir("kinship");
  o.queries = 12;
  o.corruptions = 15;
  o.rankMetrics.bootstrapSamples = 20;
  Session session = SessionAccess::make(v10Program(), {&backend}, "cpu", o);
  const WeightsFile weights = session.loadWeights(weightsFile("kinship"));
  const SessionResult one = session.evaluate(weights);

  const QueryRange all = wholeRange(session.candidates());
  std::vector<Outcome> outcomes;
  BackendTimings timings;
  // Out of order, in ranges of a few queries: placed by candidate index.
  std::vector<QueryRange> ranges = splitRange(session.candidates(), all, 100);
  ASSERT_GT(ranges.size(), 2u);
  outcomes.resize(static_cast<size_t>(all.candidates()));
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    const RangeResult r = session.evaluateRange(weights, *it);
    ASSERT_EQ(static_cast<int64_t>(r.outcomes.size()), it->candidates());
    std::copy(r.outcomes.begin(), r.outcomes.end(),
              outcomes.begin() + it->candidateBegin);
  }
  const SessionResult merged =
      session.finish(weights, all, outcomes, timings, 1, 1);
  ASSERT_EQ(merged.outcomes.size(), one.outcomes.size());
  for (size_t i = 0; i < one.outcomes.size(); ++i) {
    ASSERT_EQ(merged.outcomes[i].status, one.outcomes[i].status) << i;
    ASSERT_EQ(merged.outcomes[i].depth, one.outcomes[i].depth) << i;
    ASSERT_EQ(std::memcmp(&merged.outcomes[i].logp, &one.outcomes[i].logp, 4),
              0)
        << i;
  }
  const auto a = nlohmann::json::parse(one.reportJson());
  const auto b = nlohmann::json::parse(merged.reportJson());
  for (const char *key : {"metrics", "rank_metrics", "pykeen"})
    EXPECT_EQ(a[key], b[key]) << key;

  // A range's report covers its own queries only.
  const QueryRange first = ranges.front();
  const SessionResult part = session.finish(
      weights, first, session.evaluateRange(weights, first).outcomes, timings,
      1, 1);
  EXPECT_EQ(part.metrics.both.pairs, 2 * first.queries());
  EXPECT_EQ(errorOf([&] { session.finish(weights, first, {}, timings, 1, 1); }),
            fmt::format("0 outcomes for the {} candidates of queries [0, {})",
                        first.candidates(), first.queryEnd));
}

} // namespace
