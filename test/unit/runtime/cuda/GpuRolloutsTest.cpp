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
//    state table numbered by first use), also through the kept runner;
//  - a bundle whose policy advances (--advance-in-policy) is refused with
//    one error.
// The tensors are read from the device. Skipped without a CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/RolloutTestUtil.h"
#include "TestUtil.h"
#include "bundle/Bundle.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Rollouts.h"
#include "runtime/cuda/GpuTestUtil.h"

#include <cstring>
#include <filesystem>

namespace proofc::test {
namespace {

/// A call's tensors, read from the host or the device.
RolloutTensors readTensors(const Trajectories &t) {
  return rolloutTensors(t, [](const TensorView &v, void *dst, size_t bytes) {
    if (v.memory == MemoryKind::Host) {
      std::memcpy(dst, v.data, bytes);
    } else {
      CudaDriver &drv = CudaDriver::get();
      PROOFC_CU(drv, cuMemcpyDtoH, dst,
                static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(v.data)),
                bytes);
    }
  });
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
    if (advancesInPolicy(bundle)) {
      // Refused with one error, before any module is compiled.
      rq.mode = SelectMode::Greedy;
      const RolloutInputs in{bundle.program, ds,      weights, rq,
                             false,          nullptr, 1};
      const std::string error = errorOf([&] { gpu.rollouts(in); });
      EXPECT_NE(error.find(path + ": rollouts on cuda do not run a bundle "
                                  "compiled with --advance-in-policy"),
                std::string::npos)
          << error;
      continue;
    }
    for (SelectMode mode : {SelectMode::Greedy, SelectMode::Sampled}) {
      SCOPED_TRACE(mode == SelectMode::Sampled ? "sampled" : "greedy");
      rq.mode = mode;
      // kbId: the backend keeps its runner between calls of one size (the
      // second and later calls upload only their triples).
      const RolloutInputs in{bundle.program, ds,      weights, rq,
                             false,          nullptr, 1};
      const RolloutTensors h = readTensors(host.rollouts(in));
      const RolloutTensors g = readTensors(gpu.rollouts(in));
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
        expectSameRollouts(h, g, 1e-4, 1e-3);
      // The same call again: the same bits.
      const RolloutTensors again = readTensors(gpu.rollouts(in));
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
