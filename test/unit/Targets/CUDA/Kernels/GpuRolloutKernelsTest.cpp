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
//    real contention) and the finishing kernels give docs/rollouts.md's
//    layout exactly, and again the same on a second run.
// Skipped without a CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/RolloutTestUtil.h"
#include "TestUtil.h"
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

struct RolloutModules {
  CUfunction step, mark, scanBlocks, scanSums, scanAdd, states, steps, episodes;
  explicit RolloutModules(GpuContext &gpu) {
    CUmodule m = gpu.load(Nvrtc::get().compileToCubin(
        rolloutTestSource(), "rollout_step.cu",
        {"-DPROOFC_A=6", "-DPROOFC_S=120",
         "-DPROOFC_ENGINE_THREADS=" + std::to_string(kThreads)},
        gpu.major, gpu.minor));
    step = gpu.function(m, "proofc_test_rollout_step");
    CUmodule f = gpu.load(Nvrtc::get().compileToCubin(
        trajectoryFinishSource(), "trajectory.cu", {}, gpu.major, gpu.minor));
    mark = gpu.function(f, "proofc_traj_mark");
    scanBlocks = gpu.function(f, "proofc_traj_scan_blocks");
    scanSums = gpu.function(f, "proofc_traj_scan_sums");
    scanAdd = gpu.function(f, "proofc_traj_scan_add");
    states = gpu.function(f, "proofc_traj_states");
    steps = gpu.function(f, "proofc_traj_steps");
    episodes = gpu.function(f, "proofc_traj_episodes");
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
  int entryWords = proofc_abi::trajectoryEntryWords(kA);
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    CUdeviceptr dEpisode = gpu.upload(episode), dStep = gpu.upload(step),
                dCounts = gpu.upload(counts), dAction = gpu.upload(action),
                dLogp = gpu.upload(logp), dState = gpu.upload(state),
                dDerived = gpu.upload(derived);
    CUdeviceptr dTable = gpu.upload(
        std::vector<int>(static_cast<size_t>(entries) * entryWords, 0));
    CUdeviceptr dOverflow = gpu.upload(std::vector<int>{0});
    CUdeviceptr dDenseState = gpu.alloc(size_t(N) * D * 4),
                dDenseDerived = gpu.alloc(size_t(N) * D * kS * 4),
                dDenseCount = gpu.alloc(size_t(N) * D * 4),
                dDenseAction = gpu.alloc(size_t(N) * D * 4),
                dDenseLogp = gpu.alloc(size_t(N) * D * 4);
    CUdeviceptr none = 0;
    float temperature = 0.f;
    unsigned long long zero64 = 0;
    int one = 1;
    launch(gpu, mod.step, rows, kThreads,
           {&none,        &dCounts,       &temperature, &zero64,
            &zero64,      &dEpisode,      &dStep,       &dState,
            &dDerived,    &dAction,       &dLogp,       &one,
            &dTable,      &entries,       &dOverflow,   &D,
            &dDenseState, &dDenseDerived, &dDenseCount, &dDenseAction,
            &dDenseLogp});
    PROOFC_CU(gpu.drv, cuCtxSynchronize);
    ASSERT_EQ(gpu.download<int>(dOverflow, 1)[0], 0);

    // The finishing pass, as the backend will launch it.
    const long long marks = static_cast<long long>(N) * D * (kS + 1);
    CUdeviceptr dMark = gpu.upload(std::vector<int>(marks, 0));
    launch(gpu, mod.mark, 64, 256, {&dTable, &entries, &entryWords, &dMark});
    auto scan = [&](CUdeviceptr data, long long n) {
      int chunk = 256 * 4;
      int blocks = static_cast<int>((n + chunk - 1) / chunk);
      CUdeviceptr sums = gpu.alloc(size_t(blocks) * 4), total = gpu.alloc(4);
      launch(gpu, mod.scanBlocks, blocks, 256, {&data, &n, &sums});
      launch(gpu, mod.scanSums, 1, 32, {&sums, &blocks, &total});
      launch(gpu, mod.scanAdd, 128, 256, {&data, &n, &sums, &chunk});
      return gpu.download<int>(total, 1)[0];
    };
    int U = scan(dMark, marks);
    ASSERT_EQ(U, x.numStates());
    int W = kW;
    CUdeviceptr dEntryId = gpu.alloc(size_t(entries) * 4),
                dStates = gpu.alloc(size_t(U) * kW * 4);
    launch(gpu, mod.states, 64, 256,
           {&dTable, &entries, &entryWords, &W, &dMark, &dEntryId, &dStates});
    CUdeviceptr dDepth = gpu.upload(x.depth), dFirst = gpu.upload(x.depth);
    const int T = scan(dFirst, N);
    ASSERT_EQ(T, rows);
    CUdeviceptr oEpisode = gpu.alloc(T * 4), oState = gpu.alloc(T * 4),
                oDerived = gpu.alloc(size_t(T) * kS * 4),
                oCount = gpu.alloc(T * 4), oAction = gpu.alloc(T * 4),
                oLogp = gpu.alloc(T * 4),
                oBad = gpu.upload(std::vector<int>{0x7FFFFFFF});
    int S = kS;
    launch(gpu, mod.steps, 64, 256,
           {&N, &D, &S, &dDepth, &dFirst, &dEntryId, &dDenseState,
            &dDenseDerived, &dDenseCount, &dDenseAction, &dDenseLogp, &oEpisode,
            &oState, &oDerived, &oCount, &oAction, &oLogp, &oBad});
    PROOFC_CU(gpu.drv, cuCtxSynchronize);
    EXPECT_EQ(gpu.download<int>(dStates, size_t(U) * kW), x.states);
    EXPECT_EQ(gpu.download<int>(oEpisode, T), x.stepEpisode);
    EXPECT_EQ(gpu.download<int>(oState, T), x.stepState);
    EXPECT_EQ(gpu.download<int>(oDerived, size_t(T) * kS), x.stepDerived);
    EXPECT_EQ(gpu.download<int>(oCount, T), x.stepCount);
    EXPECT_EQ(gpu.download<int>(oAction, T), x.stepAction);
    EXPECT_EQ(gpu.download<float>(oLogp, T), x.stepLogp);
    EXPECT_EQ(gpu.download<int>(oBad, 1)[0], 0x7FFFFFFF);
  }
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
