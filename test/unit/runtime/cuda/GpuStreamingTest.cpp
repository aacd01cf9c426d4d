//===- GpuStreamingTest.cpp - Blocks on the GPU equal one block ----------===//
//
// A streamed call cut into many blocks (SessionOptions::blockCandidates) on
// the CUDA backend: the blocks are padded to one size and reuse one device
// setup (EvalInputs::shapeId: only the candidates are uploaded), and the
// outcomes, metrics and rank metrics equal those of one block bit for bit,
// in every cond mode and for every compiled bundle. Several device workers
// (--devices) give the same: two backends on one GPU (any machine with a
// GPU) and one per GPU (a machine with several). Lists that share their
// corruptions (SharedLists.h) give, on the GPU, what every list's own run
// and the host backend give. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/GpuTestUtil.h"
#include "session/SessionAccess.h"

#include "bundle/Bundle.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Session.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

using namespace proofc;
using namespace proofc::test;

namespace {

class GpuStreaming : public ::testing::TestWithParam<CondMode> {};

TEST_P(GpuStreaming, ManyBlocksEqualOneBlockBitForBit) {
  PROOFC_REQUIRE_GPU();
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    const Bundle bundle = readBundle(path);
    SessionOptions o;
    o.data = dataDir("kinship");
    o.queries = 20; // every filtered corruption: uneven lists
    o.rankMetrics.perRelation = true;
    SessionResult results[2];
    int64_t modules[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      // 0: one block; 1: blocks of about 400 candidates (some padded).
      o.blockCandidates = i == 0 ? 0 : 400;
      CudaBackend backend(bundle, path, cachedOptionsFor(GetParam()));
      Session session =
          SessionAccess::make(bundle.program, {&backend}, "cuda", o);
      results[i] =
          session.evaluate(session.loadWeights(weightsFile("kinship")));
      modules[i] =
          backend.runInfo().cache.hits + backend.runInfo().cache.misses;
      if (i == 1)
        ASSERT_GT(session.layout().candidateCount(), 8 * 400);
    }
    expectSameOutcomes(results[0].outcomes, results[1].outcomes);
    const auto one = nlohmann::json::parse(results[0].reportJson());
    const auto many = nlohmann::json::parse(results[1].reportJson());
    EXPECT_EQ(one["metrics"], many["metrics"]);
    EXPECT_EQ(one["rank_metrics"], many["rank_metrics"]);
    // One setup for the full-size blocks, at most one more for a short
    // last block: the modules were loaded at most twice.
    EXPECT_LE(modules[1], 2 * modules[0]);
  }
}

/// Runs kinship's first 20 queries in blocks of 400 on `backends` (one
/// device worker each); the result of the first call.
SessionResult runOnWorkers(const Bundle &bundle,
                           const std::vector<Backend *> &backends) {
  SessionOptions o;
  o.data = dataDir("kinship");
  o.queries = 20;
  o.rankMetrics.perRelation = true;
  o.blockCandidates = 400;
  Session session = SessionAccess::make(bundle.program, backends, "cuda", o);
  return session.evaluate(session.loadWeights(weightsFile("kinship")));
}

TEST_P(GpuStreaming, SeveralDeviceWorkersEqualOne) {
  PROOFC_REQUIRE_GPU();
  std::string why;
  const int gpus = cudaDeviceCount(&why);
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    const Bundle bundle = readBundle(path);
    CudaBackend one(bundle, path, cachedOptionsFor(GetParam()));
    const SessionResult expected = runOnWorkers(bundle, {&one});
    // Two workers sharing GPU 0 (each its own context state and setup),
    // then one worker per GPU when there are several.
    std::vector<std::vector<int>> layouts = {{0, 0}};
    if (gpus > 1) {
      layouts.emplace_back();
      for (int g = 0; g < gpus; ++g)
        layouts.back().push_back(g);
    }
    for (const std::vector<int> &ordinals : layouts) {
      SCOPED_TRACE(::testing::PrintToString(ordinals));
      std::vector<std::unique_ptr<CudaBackend>> owned;
      std::vector<Backend *> backends;
      for (int ordinal : ordinals) {
        CudaBackendOptions options = cachedOptionsFor(GetParam());
        options.device = ordinal;
        owned.push_back(std::make_unique<CudaBackend>(bundle, path, options));
        backends.push_back(owned.back().get());
      }
      const SessionResult got = runOnWorkers(bundle, backends);
      expectSameOutcomes(expected.outcomes, got.outcomes);
      const auto a = nlohmann::json::parse(expected.reportJson());
      const auto b = nlohmann::json::parse(got.reportJson());
      EXPECT_EQ(a["metrics"], b["metrics"]);
      EXPECT_EQ(a["rank_metrics"], b["rank_metrics"]);
      ASSERT_EQ(b["backend_details"]["workers"].size(), ordinals.size());
      // Every worker took blocks (there are more than 8 per worker).
      for (const auto &w : b["backend_details"]["workers"])
        EXPECT_GT(w["graph_launches"].get<int64_t>() +
                      w["host_flag_reads"].get<int64_t>(),
                  0)
            << w.dump();
    }
  }
}

TEST_P(GpuStreaming, SharedListsEqualEveryListsOwnRunAndTheHost) {
  PROOFC_REQUIRE_GPU();
  // countries_s1's first 12 queries, every corruption: 1,691 of the 5,791
  // candidates are shared; blocks of about 1,000 that run put sources and
  // copies in different blocks.
  SessionOptions o;
  o.data = dataDir("countries_s1");
  o.queries = 12;
  o.blockCandidates = 1000;
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    const Bundle bundle = readBundle(path);
    SessionResult results[2];
    for (int i = 0; i < 2; ++i) {
      o.shareLists = i == 1;
      CudaBackend backend(bundle, path, cachedOptionsFor(GetParam()));
      Session session =
          SessionAccess::make(bundle.program, {&backend}, "cuda", o);
      results[i] =
          session.evaluate(session.loadWeights(weightsFile("countries_s1")));
    }
    expectSameOutcomes(results[0].outcomes, results[1].outcomes);
    HostBackend host(HostBackendOptions{2});
    o.shareLists = false;
    Session reference = SessionAccess::make(bundle.program, {&host}, "cpu", o);
    const SessionResult expected =
        reference.evaluate(reference.loadWeights(weightsFile("countries_s1")));
    // The host's FP32 against the GPU's 3xTF32: status and depth (spec
    // §7; the log-probabilities may differ in their last bits).
    ASSERT_EQ(expected.outcomes.size(), results[1].outcomes.size());
    for (size_t c = 0; c < expected.outcomes.size(); ++c) {
      ASSERT_EQ(expected.outcomes[c].status, results[1].outcomes[c].status)
          << "candidate " << c;
      ASSERT_EQ(expected.outcomes[c].depth, results[1].outcomes[c].depth)
          << "candidate " << c;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CondModes, GpuStreaming,
                         ::testing::Values(CondMode::Native, CondMode::Emulated,
                                           CondMode::Host),
                         condModeParamName);

} // namespace
