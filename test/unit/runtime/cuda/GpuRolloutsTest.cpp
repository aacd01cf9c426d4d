//===- GpuRolloutsTest.cpp - CudaBackend::rollouts against the host's -----===//
//
// The build's compiled bundles (both schedules) run rollouts on the GPU
// (docs/rollouts-cuda.md) and the host backend runs the same request:
//  - greedy: every tensor equal (the log-probabilities within spec §7), as
//    the GPU's evaluation equals the host's on nations;
//  - sampled: the same actions wherever the logits agree: at most 1% of
//    the episodes may part (a near-tie of two perturbed scores, or logits
//    that differ within spec §7), and when none does every tensor is the
//    host's; a second call gives the same bits (the draws are keyed, the
//    state table numbered by first use), also through the kept runner.
// The tensors are read from the device. Skipped without a CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "TestUtil.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Rollouts.h"
#include "runtime/cuda/GpuTestUtil.h"

#include <cstring>
#include <filesystem>

namespace proofc::test {
namespace {

int64_t elements(const TensorView &v) {
  int64_t n = 1;
  for (int64_t d : v.shape)
    n *= d;
  return n;
}

/// A view's elements, from the host or the device.
template <typename T> std::vector<T> read(const TensorView &v) {
  std::vector<T> out(static_cast<size_t>(elements(v)));
  if (out.empty())
    return out;
  if (v.memory == MemoryKind::Host) {
    std::memcpy(out.data(), v.data, out.size() * sizeof(T));
  } else {
    CudaDriver &drv = CudaDriver::get();
    PROOFC_CU(drv, cuMemcpyDtoH, out.data(),
              static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(v.data)),
              out.size() * sizeof(T));
  }
  return out;
}

/// Trajectories copied to the host.
struct Copy {
  std::vector<int32_t> status, depth, triple, states, stepEpisode, stepState,
      stepDerived, stepCount, stepAction;
  std::vector<uint8_t> positive;
  std::vector<float> logp, stepLogp;
  explicit Copy(const Trajectories &t)
      : status(read<int32_t>(t.status)), depth(read<int32_t>(t.depth)),
        triple(read<int32_t>(t.triple)), states(read<int32_t>(t.states)),
        stepEpisode(read<int32_t>(t.stepEpisode)),
        stepState(read<int32_t>(t.stepState)),
        stepDerived(read<int32_t>(t.stepDerived)),
        stepCount(read<int32_t>(t.stepCount)),
        stepAction(read<int32_t>(t.stepAction)),
        positive(read<uint8_t>(t.positive)), logp(read<float>(t.logp)),
        stepLogp(read<float>(t.stepLogp)) {}
};

void expectSame(const Copy &host, const Copy &gpu) {
  EXPECT_EQ(gpu.status, host.status);
  EXPECT_EQ(gpu.depth, host.depth);
  EXPECT_EQ(gpu.triple, host.triple);
  EXPECT_EQ(gpu.positive, host.positive);
  EXPECT_EQ(gpu.states, host.states);
  EXPECT_EQ(gpu.stepEpisode, host.stepEpisode);
  EXPECT_EQ(gpu.stepState, host.stepState);
  EXPECT_EQ(gpu.stepDerived, host.stepDerived);
  EXPECT_EQ(gpu.stepCount, host.stepCount);
  EXPECT_EQ(gpu.stepAction, host.stepAction);
  ASSERT_EQ(gpu.stepLogp.size(), host.stepLogp.size());
  for (size_t i = 0; i < host.stepLogp.size(); ++i)
    EXPECT_NEAR(gpu.stepLogp[i], host.stepLogp[i], 1e-4) << "step " << i;
  ASSERT_EQ(gpu.logp.size(), host.logp.size());
  for (size_t i = 0; i < host.logp.size(); ++i)
    EXPECT_NEAR(gpu.logp[i], host.logp[i], 1e-3) << "episode " << i;
}

/// Episodes whose actions differ (by episode: the steps of each).
int differingEpisodes(const Copy &host, const Copy &gpu) {
  const size_t E = host.depth.size();
  int differ = 0;
  size_t h = 0, g = 0;
  for (size_t e = 0; e < E; ++e) {
    bool same = host.depth[e] == gpu.depth[e];
    for (int32_t t = 0; same && t < host.depth[e]; ++t)
      same = host.stepAction[h + t] == gpu.stepAction[g + t];
    differ += !same;
    h += static_cast<size_t>(host.depth[e]);
    g += static_cast<size_t>(gpu.depth[e]);
  }
  return differ;
}

TEST(GpuRollouts, EqualTheHostBackends) {
  PROOFC_REQUIRE_GPU();
  const std::vector<std::string> paths = compiledBundlePaths();
  if (paths.empty())
    GTEST_SKIP() << "no compiled bundle in this build";
  if (!std::filesystem::exists(dataDir("nations")))
    GTEST_SKIP() << "dataset nations not present";
  const Dataset ds = loadDataset(dataDir("nations"));
  const TensorMap weights = readSafetensors(weightsFile("nations"));
  RolloutRequest rq;
  for (size_t i = 0; i < 64; ++i) {
    rq.triples.push_back(ds.train[i * 37 % ds.train.size()]);
    rq.positive.push_back(static_cast<uint8_t>(i % 2));
  }
  rq.episodesPerTriple = 4;
  rq.seed = 2027;
  rq.episodeBase = 1000;
  for (const std::string &path : paths) {
    SCOPED_TRACE(path);
    const Bundle bundle = readBundle(path);
    CudaBackendOptions options;
    options.cache.disabled = true;
    CudaBackend gpu(bundle, path, options);
    HostBackend host;
    for (SelectMode mode : {SelectMode::Greedy, SelectMode::Sampled}) {
      SCOPED_TRACE(mode == SelectMode::Sampled ? "sampled" : "greedy");
      rq.mode = mode;
      // kbId: the backend keeps its runner between calls of one size (the
      // second and later calls upload only their triples).
      const RolloutInputs in{bundle.program, ds,      weights, rq,
                             false,          nullptr, 1};
      const Copy h(host.rollouts(in));
      const Copy g(gpu.rollouts(in));
      ASSERT_EQ(g.depth.size(), h.depth.size());
      const int differ = differingEpisodes(h, g);
      RecordProperty(mode == SelectMode::Sampled ? "sampled_differ"
                                                 : "greedy_differ",
                     differ);
      std::cout << "[ rollouts ] " << path << ": "
                << (mode == SelectMode::Sampled ? "sampled" : "greedy") << ", "
                << h.depth.size() << " episodes, " << h.stepAction.size()
                << " steps, " << differ << " episodes differ from the host\n";
      if (mode == SelectMode::Greedy)
        EXPECT_EQ(differ, 0);
      else
        EXPECT_LE(differ, static_cast<int>(h.depth.size()) / 100 + 1);
      if (differ == 0)
        expectSame(h, g);
      // The same call again: the same bits.
      const Copy again(gpu.rollouts(in));
      EXPECT_EQ(again.stepAction, g.stepAction);
      EXPECT_EQ(again.states, g.states);
      EXPECT_EQ(again.stepDerived, g.stepDerived);
      EXPECT_EQ(again.stepLogp, g.stepLogp);
      EXPECT_EQ(again.logp, g.logp);
    }
  }
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
