//===- GpuRolloutKernelsTest.cpp - The rollouts' device code on a GPU
//------===//
//
// docs/rollouts-cuda.md's device code compiled by NVRTC and run on the GPU:
//  - sample.cu's select draws, on thousands of lists at once, the action the
//    host's Sampling.h draws from the same logits (the device's double log
//    against libm's: the two may part only on a near-tie, which the test
//    counts and expects none of), with the host's log-probability;
//  - trajectory.cu's recording by every step of many episodes at once (one
//    block per step, all concurrent: the state table's claims and waits under
//    real contention) and DeviceTrajectories' finishing pass give
//    docs/rollouts.md's layout exactly, and again the same on a second run.
// Skipped without a CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/RolloutTestUtil.h"
#include "TestUtil.h"
#include "cuda/DeviceTrajectories.h"
#include "cuda/KernelCache.h"
#include "cuda/Nvrtc.h"
#include "host/HostPolicy.h"
#include "proofc/contract/Sampling.h"
#include "proofc/contract/kernel_abi.h"
#include "runtime/cuda/GpuTestUtil.h"

#include <cmath>
#include <cstring>
#include <filesystem>

namespace proofc::test {
namespace {

constexpr int kA = 6, kS = 120, kW = 3 * kA, kThreads = 256;

/// The test kernel (RolloutTestUtil.h's kRolloutTestKernel); the finishing
/// kernels are DeviceTrajectories' own.
struct RolloutModules {
  CUfunction step;
  explicit RolloutModules(GpuContext &gpu) {
    CUmodule m = gpu.load(Nvrtc::get().compileToCubin(
        rolloutTestSource(), "rollout_step.cu",
        {"-DPROOFC_A=6", "-DPROOFC_S=120",
         "-DPROOFC_ENGINE_THREADS=" + std::to_string(kThreads)},
        gpu.major, gpu.minor));
    step = gpu.function(m, "proofc_test_rollout_step");
  }
};

void launch(GpuContext &gpu, CUfunction f, unsigned grid, unsigned block,
            std::vector<void *> args) {
  PROOFC_CU(gpu.drv, cuLaunchKernel, f, grid, 1, 1, block, 1, 1, 0, nullptr,
            args.data(), nullptr);
}

TEST(GpuRolloutKernels, SampledSelectDrawsTheHostRule) {
  PROOFC_REQUIRE_GPU();
  GpuContext gpu;
  RolloutModules mod(gpu);
  const int B = 4096;
  std::mt19937_64 rng(27);
  std::normal_distribution<float> normal(0.f, 3.f);
  std::vector<float> logits(static_cast<size_t>(B) * kS, 0.f);
  std::vector<int> counts(B), episode(B), step(B);
  for (int b = 0; b < B; ++b) {
    counts[b] = 1 + static_cast<int>(rng() % kS);
    for (int i = 0; i < counts[b]; ++i)
      logits[static_cast<size_t>(b) * kS + i] =
          b % 4 == 0 ? static_cast<float>(rng() % 3) : normal(rng);
    episode[b] = b;
    step[b] = b % 20;
  }
  float temperature = 0.8f;
  unsigned long long seed = 0xfeedface12345ull, base = 1ull << 40;
  CUdeviceptr dLogits = gpu.upload(logits), dCounts = gpu.upload(counts),
              dEpisode = gpu.upload(episode), dStep = gpu.upload(step),
              dAction = gpu.alloc(B * 4), dLogp = gpu.alloc(B * 4);
  CUdeviceptr none = 0;
  int zero = 0;
  launch(gpu, mod.step, B, kThreads,
         {&dLogits, &dCounts, &temperature, &seed,  &base, &dEpisode, &dStep,
          &none,    &none,    &dAction,     &dLogp, &zero, &none,     &zero,
          &none,    &zero,    &none,        &none,  &none, &none,     &none});
  PROOFC_CU(gpu.drv, cuCtxSynchronize);
  const std::vector<int> action = gpu.download<int>(dAction, B);
  const std::vector<float> logp = gpu.download<float>(dLogp, B);
  int differ = 0;
  for (int b = 0; b < B; ++b) {
    const float *l = logits.data() + static_cast<size_t>(b) * kS;
    const int expected = sampling::sampleAction(l, counts[b], temperature, seed,
                                                base + static_cast<uint64_t>(b),
                                                static_cast<unsigned>(step[b]));
    if (action[b] != expected) {
      ++differ;
      continue;
    }
    const Action a = sampleAction(l, counts[b], temperature, seed,
                                  base + static_cast<uint64_t>(b),
                                  static_cast<uint32_t>(step[b]));
    EXPECT_NEAR(logp[b], a.logp, 1e-6 * std::max(1.0, std::fabs(a.logp)))
        << "list " << b;
  }
  RecordProperty("differing_actions", differ);
  EXPECT_EQ(differ, 0) << "of " << B << " lists";
}

TEST(GpuRolloutKernels, RecordsTheHostLayoutUnderContention) {
  PROOFC_REQUIRE_GPU();
  if (!std::filesystem::exists(dataDir("kinship")))
    GTEST_SKIP() << "dataset kinship not present";
  GpuContext gpu;
  RolloutModules mod(gpu);
  Dataset ds = loadDataset(dataDir("kinship"));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape;
  int N = 256, D = shape.D;
  const auto episodes = hostEpisodes(ds, kb, shape, N, 3);
  const ExpectedLayout x(episodes, shape);

  // One block per step, all in one launch.
  std::vector<int> episode, step, counts, action, state, derived;
  std::vector<float> logp;
  for (int q = 0; q < N; ++q)
    for (size_t t = 0; t < episodes[q].size(); ++t) {
      const HostStep &s = episodes[q][t];
      episode.push_back(q);
      step.push_back(static_cast<int>(t));
      counts.push_back(s.count);
      action.push_back(s.action);
      logp.push_back(s.logp);
      const int *p = reinterpret_cast<const int *>(s.parent.data());
      state.insert(state.end(), p, p + kW);
      const int *d = reinterpret_cast<const int *>(s.derived.data());
      derived.insert(derived.end(), d, d + s.count * kW);
      derived.resize(derived.size() + (kS - s.count) * kW, 0);
    }
  const int rows = static_cast<int>(episode.size());
  int entries = 1;
  while (entries < 2 * x.numStates())
    entries *= 2;
  KernelCacheOptions cacheOptions;
  cacheOptions.disabled = true;
  KernelCache cache(cacheOptions);
  DeviceTrajectories traj(gpu.drv, cache, gpu.major, gpu.minor, "test");
  CUdeviceptr dEpisode = gpu.upload(episode), dStep = gpu.upload(step),
              dCounts = gpu.upload(counts), dAction = gpu.upload(action),
              dLogp = gpu.upload(logp), dState = gpu.upload(state),
              dDerived = gpu.upload(derived), dDepth = gpu.upload(x.depth);
  const std::vector<uint8_t> positive = layoutPositives(N);
  // Twice: the second call reuses the object (its buffers freed and made
  // anew) and must give the same tensors.
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    DeviceTrajectories::Recording rec =
        traj.prepare(N, D, kS, kA, entries, nullptr);
    CUdeviceptr none = 0;
    float temperature = 0.f;
    unsigned long long zero64 = 0;
    int one = 1;
    launch(gpu, mod.step, rows, kThreads,
           {&none,          &dCounts,         &temperature,   &zero64,
            &zero64,        &dEpisode,        &dStep,         &dState,
            &dDerived,      &dAction,         &dLogp,         &one,
            &rec.table,     &rec.entries,     &rec.overflow,  &rec.D,
            &rec.stepState, &rec.stepDerived, &rec.stepCount, &rec.stepAction,
            &rec.stepLogp});
    ASSERT_FALSE(traj.overflowed(nullptr));
    const DeviceTrajectories::Output out =
        traj.finish(dDepth, kEpisodesPerTriple, positive, nullptr);
    ASSERT_EQ(out.numStates, x.numStates());
    ASSERT_EQ(out.steps, rows);
    const size_t U = static_cast<size_t>(out.numStates), T = rows;
    EXPECT_EQ(gpu.download<int>(out.states, U * kW), x.states);
    EXPECT_EQ(gpu.download<int>(out.stepEpisode, T), x.stepEpisode);
    EXPECT_EQ(gpu.download<int>(out.stepState, T), x.stepState);
    EXPECT_EQ(gpu.download<int>(out.stepDerived, T * kS), x.stepDerived);
    EXPECT_EQ(gpu.download<int>(out.stepCount, T), x.stepCount);
    EXPECT_EQ(gpu.download<int>(out.stepAction, T), x.stepAction);
    EXPECT_EQ(gpu.download<float>(out.stepLogp, T), x.stepLogp);
    EXPECT_EQ(out.firstNonFinite, -1);
    EXPECT_EQ(gpu.download<int>(out.triple, N), x.triple);
    EXPECT_EQ(gpu.download<uint8_t>(out.positive, N), x.positive);
    EXPECT_EQ(gpu.download<float>(out.logp, N), x.logp);
  }
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
