//===- GpuStreamingTest.cpp - Blocks on the GPU equal one block ----------===//
//
// A streamed call cut into many blocks (SessionOptions::blockCandidates) on
// the CUDA backend: the blocks are padded to one size and reuse one device
// setup (EvalInputs::shapeId: only the candidates are uploaded), and the
// outcomes, metrics and rank metrics equal those of one block bit for bit,
// in every cond mode and for every compiled bundle. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/GpuTestUtil.h"

#include "proofc/runtime/Bundle.h"
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
      Session session(bundle.program, backend, "cuda", o);
      results[i] = session.evaluate(session.loadWeights(weightsFile("kinship")));
      modules[i] = backend.info().cache.hits + backend.info().cache.misses;
      if (i == 1)
        ASSERT_GT(session.layout().candidateCount(), 8 * 400);
    }
    expectSameOutcomes(results[0].outcomes, results[1].outcomes);
    const auto one = nlohmann::json::parse(results[0].reportJson);
    const auto many = nlohmann::json::parse(results[1].reportJson);
    EXPECT_EQ(one["metrics"], many["metrics"]);
    EXPECT_EQ(one["rank_metrics"], many["rank_metrics"]);
    // One setup for the full-size blocks, at most one more for a short
    // last block: the modules were loaded at most twice.
    EXPECT_LE(modules[1], 2 * modules[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(CondModes, GpuStreaming,
                         ::testing::Values(CondMode::Native, CondMode::Emulated,
                                           CondMode::Host),
                         condModeParamName);

} // namespace
