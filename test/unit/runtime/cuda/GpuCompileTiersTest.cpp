//===- GpuCompileTiersTest.cpp - The quick kernels, then the optimized ---===//
//
// A cold setup on the quick tier (cuda/CompileTiers.h) runs the same
// candidates to the same outcomes, bit for bit, as the optimized kernels
// its runner swaps in between calls once they are compiled, and those are
// the host backend's (spec §7); a plan that folds the atom layer on the
// device gets the quick device prologue first (compiled beside the
// modules, counted with them) and its tables with it. The background
// build fills the kernel cache, so a later backend starts on the
// optimized kernels with no miss; a later pool's setup after the build
// gets them too; with the tiers off a cold setup waits for the optimized
// kernels; kernels prefetched as a Session opens are compiled once for
// every worker of the device. On the test bundle (CUDA C++ modules only) with
// nations, and on each compiled bundle (the policy's PTX with slot.cu linked
// in) with kinship when the build made them. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "host/HostBackend.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "runtime/cuda/TestBundle.h"

#include <chrono>
#include <thread>

namespace proofc::test {
namespace {

CudaBackendOptions tieredOptions(const std::string &cacheDir,
                                 CompileTiers tiers) {
  CudaBackendOptions o;
  o.cache.dir = cacheDir;
  o.cache.disabled = false;
  o.tiers = tiers;
  return o;
}

int64_t loadedModuleCount(const Bundle &bundle) {
  int64_t n = 0;
  for (const KernelModule &m : bundle.modules)
    n += !isLinkedModule(bundle, m.name);
  return n;
}

/// The loaded modules whose quick build differs from the optimized one:
/// CUDA C++ and PTX that links CUDA C++ (their cache keys hold the tier's
/// options). A PTX module without links is JIT-compiled alike in both tiers
/// under one key, so the quick build finds it in the cache when the
/// background build, started first, wrote it before the quick build looked.
int64_t tieredModuleCount(const Bundle &bundle) {
  int64_t n = 0;
  for (const KernelModule &m : bundle.modules)
    n += !isLinkedModule(bundle, m.name) &&
         (m.format == "cuda" || !m.link.empty());
  return n;
}

/// Runs `inputs` (one pool, reused) on a cold cache: the quick kernels
/// first, then again until the runner has swapped in the optimized ones.
void checkBothTiers(const Bundle &bundle, const std::string &path,
                    EvalInputs inputs) {
  SCOPED_TRACE(path);
  TempDir cache;
  BackendTimings ht, t;
  const std::vector<Outcome> host = HostBackend().run(inputs, ht);
  inputs.poolId = 1; // every call on the same pool: the runner is kept
  CudaBackend backend(bundle, path,
                      tieredOptions(cache.path(), CompileTiers::Always));
  const std::vector<Outcome> quick = backend.run(inputs, t);
  const CudaRunInfo first = backend.runInfo();
  EXPECT_TRUE(first.quickKernels);
  EXPECT_TRUE(first.tiered);
  // Every module compiled or found; the tiered ones compiled (a cold
  // cache holds no quick entry).
  EXPECT_EQ(first.cache.misses + first.cache.hits, loadedModuleCount(bundle));
  EXPECT_GE(first.cache.misses, tieredModuleCount(bundle));
  EXPECT_EQ(cudaRunInfoJson(first)["kernels_tier"], "quick");
  // A plan that folds the atom layer on the device needs the device
  // prologue in its first run: compiled beside the modules, and counted.
  EXPECT_EQ(first.moduleCompileSeconds.count(kDevicePrologueModule),
            planFoldsAtomLayer(bundle.plan) ? 1u : 0u);
  ASSERT_EQ(quick.size(), host.size());
  int64_t same = 0;
  for (size_t i = 0; i < host.size(); ++i)
    same +=
        quick[i].status == host[i].status && quick[i].depth == host[i].depth;
  EXPECT_GE(double(same) / double(host.size()), 0.999);

  // The optimized build runs beside the calls; the runner swaps at the
  // first call after it.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(5);
  std::vector<Outcome> optimized;
  while (std::chrono::steady_clock::now() < deadline) {
    optimized = backend.run(inputs, t);
    if (!backend.runInfo().quickKernels)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const CudaRunInfo swapped = backend.runInfo();
  ASSERT_FALSE(swapped.quickKernels) << "no swap within 5 minutes";
  EXPECT_TRUE(swapped.tiered);
  EXPECT_GE(swapped.optimizedModuleSeconds, 0.0);
  const nlohmann::json j = cudaRunInfoJson(swapped);
  EXPECT_EQ(j["kernels_tier"], "optimized");
  EXPECT_TRUE(j["optimized_modules_seconds"].is_number());
  expectSameOutcomes(quick, optimized);
  // And once more on the swapped kernels (their graph built again).
  expectSameOutcomes(optimized, backend.run(inputs, t));

  // Another pool's setup in the same backend: the optimized kernels, from
  // the cache the background build filled.
  inputs.poolId = 2;
  expectSameOutcomes(optimized, backend.run(inputs, t));
  EXPECT_FALSE(backend.runInfo().quickKernels);

  // A later backend (a later program): the optimized kernels at once.
  inputs.poolId = 0;
  CudaBackend warm(bundle, path,
                   tieredOptions(cache.path(), CompileTiers::Always));
  expectSameOutcomes(optimized, warm.run(inputs, t));
  EXPECT_FALSE(warm.runInfo().quickKernels);
  EXPECT_FALSE(warm.runInfo().tiered);
  EXPECT_EQ(warm.runInfo().cache.misses, 0);
  EXPECT_EQ(warm.runInfo().cache.hits, loadedModuleCount(bundle));
  EXPECT_FALSE(
      cudaRunInfoJson(warm.runInfo()).contains("optimized_modules_seconds"));
  std::cout << "[ tiers    ] " << path << ": " << host.size()
            << " candidates, quick modules " << first.moduleSeconds
            << " s, optimized after " << swapped.optimizedModuleSeconds
            << " s\n";
}

TEST(GpuCompileTiers, QuickThenOptimizedKernelsGiveTheSameOutcomes) {
  PROOFC_REQUIRE_GPU();
  if (!std::filesystem::exists(dataDir("nations")))
    GTEST_SKIP() << "dataset nations not present";
  const ProgramSpec program = v10Program();
  const TrainedWorkload w = trainedWorkload("nations", 12);
  checkBothTiers(makeTestBundle(program, 128, /*fusedStep=*/true), "test.pcb",
                 EvalInputs{program, w.ds, w.weights, w.set, false});
}

TEST(GpuCompileTiers, CompiledBundlesToo) {
  PROOFC_REQUIRE_GPU();
  const std::vector<std::string> paths = compiledBundlePaths();
  if (paths.empty())
    GTEST_SKIP() << "no compiled bundle (PROOFC_TEST_BUNDLE)";
  if (!std::filesystem::exists(dataDir("kinship")))
    GTEST_SKIP() << "dataset kinship not present";
  const TrainedWorkload w = trainedWorkload("kinship", 20);
  for (const std::string &path : paths) {
    const Bundle bundle = readBundle(path);
    checkBothTiers(bundle, path,
                   EvalInputs{bundle.program, w.ds, w.weights, w.set, false});
  }
}

TEST(GpuCompileTiers, OffWaitsForTheOptimizedKernels) {
  PROOFC_REQUIRE_GPU();
  if (!std::filesystem::exists(dataDir("nations")))
    GTEST_SKIP() << "dataset nations not present";
  const ProgramSpec program = v10Program();
  const TrainedWorkload w = trainedWorkload("nations", 4);
  TempDir cache;
  CudaBackend backend(makeTestBundle(program, 128, /*fusedStep=*/true),
                      "test.pcb",
                      tieredOptions(cache.path(), CompileTiers::Off));
  BackendTimings t;
  backend.run(EvalInputs{program, w.ds, w.weights, w.set, false}, t);
  EXPECT_FALSE(backend.runInfo().quickKernels);
  EXPECT_FALSE(backend.runInfo().tiered);
  EXPECT_GT(backend.runInfo().cache.misses, 0);
}

TEST(GpuCompileTiers, PrefetchCompilesOnceForEveryWorkerOfTheDevice) {
  // As a Session opens two workers on one GPU (Devices.cpp): the first
  // prefetches, the second shares its builds. The first run waits for the
  // prefetch and takes its set, with the compile's counters; the second
  // worker's finds every module in the cache that build filled.
  PROOFC_REQUIRE_GPU();
  if (!std::filesystem::exists(dataDir("nations")))
    GTEST_SKIP() << "dataset nations not present";
  const ProgramSpec program = v10Program();
  const TrainedWorkload w = trainedWorkload("nations", 4);
  const Bundle bundle = makeTestBundle(program, 128, /*fusedStep=*/true);
  const EvalInputs inputs{program, w.ds, w.weights, w.set, false};
  TempDir cache;
  CudaBackend first(bundle, "test.pcb",
                    tieredOptions(cache.path(), CompileTiers::Off));
  CudaBackend second(bundle, "test.pcb",
                     tieredOptions(cache.path(), CompileTiers::Off));
  first.prefetchModules();
  second.shareModules(first);
  BackendTimings t;
  const std::vector<Outcome> a = first.run(inputs, t);
  EXPECT_FALSE(first.runInfo().quickKernels);
  EXPECT_EQ(first.runInfo().cache.misses, loadedModuleCount(bundle));
  EXPECT_EQ(first.runInfo().cache.hits, 0);
  const std::vector<Outcome> b = second.run(inputs, t);
  EXPECT_EQ(second.runInfo().cache.misses, 0);
  EXPECT_EQ(second.runInfo().cache.hits, loadedModuleCount(bundle));
  expectSameOutcomes(a, b);
  // And the kernels of a backend that compiled them itself.
  TempDir own;
  CudaBackend alone(bundle, "test.pcb",
                    tieredOptions(own.path(), CompileTiers::Off));
  expectSameOutcomes(a, alone.run(inputs, t));
  // A warm cache: nothing to prefetch, the setup reads it as before.
  CudaBackend warm(bundle, "test.pcb",
                   tieredOptions(cache.path(), CompileTiers::Off));
  warm.prefetchModules();
  expectSameOutcomes(a, warm.run(inputs, t));
  EXPECT_EQ(warm.runInfo().cache.misses, 0);
  EXPECT_EQ(warm.runInfo().cache.hits, loadedModuleCount(bundle));
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
