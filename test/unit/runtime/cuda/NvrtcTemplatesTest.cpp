//===- NvrtcTemplatesTest.cpp - The kernel templates compile with NVRTC ---===//
//
// NVRTC needs no GPU: this checks on any machine with the CUDA toolkit that
// every CUDA C++ template compiles for sm_90 in the configurations the
// compiler emits (NVRTC's JIT mode rejects what a plain C++ compile of the
// CPU-emulation tests accepts, e.g. host constexpr functions), and that the
// device prologue's embedded kernels compile. Skipped, with the reason,
// where libnvrtc cannot load.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "Targets/CUDA/Kernels/RolloutTestUtil.h"
#include "cuda/CompileTiers.h"
#include "cuda/DevicePrologue.h"
#include "cuda/Nvrtc.h"
#include "proofc/contract/kernel_abi.h"
#include "proofc/runtime/Error.h"
#include "support/FileIO.h"

namespace proofc::test {
namespace {

/// `nvrtc`: the loaded NVRTC, or the test skips with why it cannot load.
#define PROOFC_REQUIRE_NVRTC(nvrtc)                                            \
  const Nvrtc *nvrtc = nullptr;                                                \
  try {                                                                        \
    nvrtc = &Nvrtc::get();                                                     \
  } catch (const Error &e) {                                                   \
    GTEST_SKIP() << "no NVRTC: " << e.what();                                  \
  }

TEST(NvrtcTemplates, CompileForSm90InEveryEmittedConfiguration) {
  PROOFC_REQUIRE_NVRTC(nvrtc);
  struct Config {
    int A, S, threads;
  };
  // V10 at the engine block sizes proofc compile offers, and a small shape
  // at the largest block whose tables fit 48 KiB.
  const Config configs[] = {
      {6, 120, 32}, {6, 120, 128}, {6, 120, 256}, {2, 8, 512}};
  for (const char *file : {"engine.cu", "step.cu"})
    for (const Config &c : configs) {
      const std::vector<std::string> options = {
          "-DPROOFC_A=" + std::to_string(c.A),
          "-DPROOFC_S=" + std::to_string(c.S),
          "-DPROOFC_ENGINE_THREADS=" + std::to_string(c.threads)};
      EXPECT_NO_THROW(
          nvrtc->compileToCubin(kernelTemplate(file), file, options, 9, 0))
          << file << " " << options[0] << " " << options[1] << " "
          << options[2];
    }
  // The fused advance-engine as memo-max-waits compiles it.
  const std::vector<std::string> waits = {
      "-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=32",
      std::string(proofc_abi::kMemoWaitsOptionPrefix) + "2"};
  EXPECT_NO_THROW(
      nvrtc->compileToCubin(kernelTemplate("step.cu"), "step.cu", waits, 9, 0));
}

// slot.cu is relocatable device code linked into the persistent policy
// kernel: -rdc=true, at the policy's block and register cap (v10: 256
// threads, 2 blocks per SM), and it must export its one function. Its
// derive uses the kernel's dynamic shared memory, so 512 threads compile
// there, while engine.cu's static tables for them pass 48 KiB.
TEST(NvrtcTemplates, SlotCompilesAsRelocatableCode) {
  PROOFC_REQUIRE_NVRTC(nvrtc);
  const std::vector<std::string> options = {"-DPROOFC_A=6", "-DPROOFC_S=120",
                                            "-DPROOFC_ENGINE_THREADS=256",
                                            "-maxrregcount=128", "-rdc=true"};
  std::string cubin;
  ASSERT_NO_THROW(cubin = nvrtc->compileToCubin(kernelTemplate("slot.cu"),
                                                "slot.cu", options, 9, 0));
  EXPECT_NE(cubin.find("proofc_slot_advance_engine"), std::string::npos);
  const std::vector<std::string> wide = {"-DPROOFC_A=6", "-DPROOFC_S=120",
                                         "-DPROOFC_ENGINE_THREADS=512"};
  std::vector<std::string> rdc = wide;
  rdc.push_back("-rdc=true");
  EXPECT_NO_THROW(
      nvrtc->compileToCubin(kernelTemplate("slot.cu"), "slot.cu", rdc, 9, 0));
  EXPECT_THROW(nvrtc->compileToCubin(kernelTemplate("engine.cu"), "engine.cu",
                                     wide, 9, 0),
               Error);
}

// A module that lists its entries (kernel_abi.h's PROOFC_HAS_ENTRY, what
// eval-lower-to-gpu emits) defines those and no other: the persistent
// schedule's step module has no advance kernels, the step schedule's
// advance module only the fused advance-engine kernel.
TEST(NvrtcTemplates, ListedEntriesAreTheOnlyOnes) {
  PROOFC_REQUIRE_NVRTC(nvrtc);
  auto compile = [&](const std::vector<std::string> &entries) {
    std::vector<std::string> options = {"-DPROOFC_A=6", "-DPROOFC_S=120",
                                        "-DPROOFC_ENGINE_THREADS=128",
                                        proofc_abi::kEntriesListedOption};
    for (const std::string &e : entries)
      options.push_back(proofc_abi::kEntryOptionPrefix + e);
    return nvrtc->compileToCubin(kernelTemplate("step.cu"), "step.cu", options,
                                 9, 0);
  };
  // A symbol's name as the cubin's string table holds it.
  auto has = [](const std::string &cubin, const std::string &entry) {
    return cubin.find(entry + '\0') != std::string::npos;
  };
  const char *all[] = {"proofc_init", "proofc_engine", "proofc_advance",
                       "proofc_advance_engine", "proofc_finish"};
  std::string cubin;
  ASSERT_NO_THROW(
      cubin = compile({"proofc_init", "proofc_engine", "proofc_finish"}));
  for (const char *e : all)
    EXPECT_EQ(has(cubin, e), std::string(e) != "proofc_advance" &&
                                 std::string(e) != "proofc_advance_engine")
        << e;
  ASSERT_NO_THROW(cubin = compile({"proofc_advance_engine"}));
  for (const char *e : all)
    EXPECT_EQ(has(cubin, e), std::string(e) == "proofc_advance_engine") << e;
  // Without the list, every entry.
  ASSERT_NO_THROW(
      cubin = nvrtc->compileToCubin(kernelTemplate("step.cu"), "step.cu",
                                    {"-DPROOFC_A=6", "-DPROOFC_S=120"}, 9, 0));
  for (const char *e : all)
    EXPECT_TRUE(has(cubin, e)) << e;
}

/// The sampled action rule (proofc/contract/Sampling.h, docs/sampling.md)
/// as a kernel includes it: pasted in as the kernel embedder pastes the
/// contract's headers, it compiles under NVRTC with no other include and
/// its functions (the draw, the Gumbel value) are callable from device code.
/// Part of RolloutDeviceCodeCompiles: as a test of its own, the one short
/// NVRTC compile in a process, LeakSanitizer's exit-time scan crashed
/// (signal 11 in its tracer, after the test passed) in the sanitizer suite.
void expectSamplingContractCompiles(const Nvrtc &nvrtc) {
  const std::string header = readFile(
      PROOFC_SOURCE_DIR "/runtime/contract/include/proofc/contract/Sampling.h");
  const std::string source = header + R"(
extern "C" __global__ void proofc_sample_test(const float *logits, int count,
                                              float temperature,
                                              unsigned long long seed,
                                              unsigned long long episode,
                                              int *action, double *g) {
  *action = proofc::sampling::sampleAction(logits, count, temperature, seed,
                                           episode, 3u);
  *g = proofc::sampling::gumbel(proofc::sampling::drawBits(seed, episode,
                                                           0u, 0u));
}
)";
  std::string cubin;
  ASSERT_NO_THROW(cubin =
                      nvrtc.compileToCubin(source, "sampling.cu", {}, 9, 0));
  EXPECT_NE(cubin.find("proofc_sample_test"), std::string::npos);
}

// The rollouts' device code (docs/rollouts-cuda.md): sample.cu's block-wide
// sampled select (with runtime/contract's Sampling.h) and trajectory.cu's
// recording, inlined after engine.cu as the step templates include
// them (rollout.cu), called from a kernel at the block sizes the schedules use;
// and the runtime's finishing kernels, which need no include.
TEST(NvrtcTemplates, RolloutDeviceCodeCompiles) {
  PROOFC_REQUIRE_NVRTC(nvrtc);
  expectSamplingContractCompiles(*nvrtc);
  const std::string source = rolloutTestSource();
  EXPECT_EQ(source.find("#include \""), std::string::npos);
  for (int threads : {128, 256}) {
    std::string cubin;
    EXPECT_NO_THROW(cubin = nvrtc->compileToCubin(
                        source, "rollout_step.cu",
                        {"-DPROOFC_A=6", "-DPROOFC_S=120",
                         "-DPROOFC_ENGINE_THREADS=" + std::to_string(threads)},
                        9, 0))
        << threads << " threads";
    EXPECT_NE(cubin.find("proofc_test_rollout_step"), std::string::npos);
  }
  std::string cubin;
  ASSERT_NO_THROW(cubin = nvrtc->compileToCubin(trajectoryFinishSource(),
                                                "trajectory.cu", {}, 9, 0));
  for (const char *entry : kTrajectoryFinishEntries)
    EXPECT_NE(cubin.find(entry), std::string::npos) << entry;
  // The rollouts' step and slot modules (-DPROOFC_ROLLOUT=1, rollout.cu):
  // the step schedule's fused advance, and slot.cu as relocatable code at
  // the persistent kernel's block and register cap; both export the
  // parameters' variable the runtime writes.
  std::string step, slot;
  ASSERT_NO_THROW(
      step = nvrtc->compileToCubin(kernelTemplate("step.cu"), "step.cu",
                                   {"-DPROOFC_A=6", "-DPROOFC_S=120",
                                    "-DPROOFC_ENGINE_THREADS=128",
                                    proofc_abi::kRolloutOption},
                                   9, 0));
  EXPECT_NE(step.find("proofc_rollout_params"), std::string::npos);
  ASSERT_NO_THROW(
      slot = nvrtc->compileToCubin(
          kernelTemplate("slot.cu"), "slot.cu",
          {"-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=256",
           "-maxrregcount=128", "-rdc=true", proofc_abi::kRolloutOption},
          9, 0));
  EXPECT_NE(slot.find("proofc_rollout_params"), std::string::npos);
  EXPECT_NE(slot.find("proofc_slot_advance_engine"), std::string::npos);
}

// The device prologue's kernels (runtime/src/cuda/kernels/prologue.cu with
// prologue_ops.h pasted in) as the runtime embeds them: one self-contained
// source that NVRTC compiles for every architecture it still supports from
// Turing on, exporting the four entry points DevicePrologue loads.
TEST(NvrtcTemplates, DevicePrologueCompilesAsEmbedded) {
  PROOFC_REQUIRE_NVRTC(nvrtc);
  const std::string &source = DevicePrologue::source();
  EXPECT_EQ(source.find("#include \""), std::string::npos)
      << "the embedded source must be self-contained";
  EXPECT_NE(source.find("__dadd_rn"), std::string::npos)
      << "prologue_ops.h is pasted in";
  const std::pair<int, int> archs[] = {{7, 5}, {8, 0}, {8, 9}, {9, 0}};
  for (auto [major, minor] : archs) {
    std::string cubin;
    ASSERT_NO_THROW(
        cubin = nvrtc->compileToCubin(source, "prologue.cu", {}, major, minor))
        << "sm_" << major << minor;
    for (const char *entry :
         {DevicePrologue::kFoldColumnsEntry, DevicePrologue::kTransposeEntry,
          DevicePrologue::kTf32FragmentsEntry,
          DevicePrologue::kF16FragmentsEntry,
          DevicePrologue::kFoldAtomLayerEntry})
      EXPECT_NE(cubin.find(entry), std::string::npos)
          << entry << " in sm_" << major << minor;
  }
}

// The quick tier (cuda/CompileTiers.h) adds one NVRTC option to every CUDA
// C++ module and to the device prologue: this NVRTC takes it (else a cold
// setup gives a notice and waits for the optimized kernels), and the
// modules keep their entries.
TEST(NvrtcTemplates, TheQuickTiersOptionCompilesEveryModule) {
  PROOFC_REQUIRE_NVRTC(nvrtc);
  const std::vector<std::string> quick = {kQuickTierOption};
  std::string cubin;
  ASSERT_NO_THROW(cubin = nvrtc->compileToCubin(DevicePrologue::source(),
                                                "prologue.cu", quick, 9, 0));
  EXPECT_NE(cubin.find(DevicePrologue::kFoldAtomLayerEntry), std::string::npos);
  const std::vector<std::string> step = {
      "-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=32",
      proofc_abi::kEngineListOption, kQuickTierOption};
  ASSERT_NO_THROW(cubin = nvrtc->compileToCubin(kernelTemplate("step.cu"),
                                                "step.cu", step, 9, 0));
  EXPECT_NE(cubin.find("proofc_advance_engine"), std::string::npos);
  const std::vector<std::string> slot = {"-DPROOFC_A=6", "-DPROOFC_S=120",
                                         "-DPROOFC_ENGINE_THREADS=256",
                                         kQuickTierOption, "-rdc=true"};
  ASSERT_NO_THROW(cubin = nvrtc->compileToCubin(kernelTemplate("slot.cu"),
                                                "slot.cu", slot, 9, 0));
  EXPECT_NE(cubin.find("proofc_slot_advance_engine"), std::string::npos);
}

} // namespace
} // namespace proofc::test

#else // !PROOFC_HAVE_CUDA

TEST(NvrtcTemplates, CompileForSm90InEveryEmittedConfiguration) {
  GTEST_SKIP() << "no NVRTC: built without the CUDA headers";
}

TEST(NvrtcTemplates, DevicePrologueCompilesAsEmbedded) {
  GTEST_SKIP() << "no NVRTC: built without the CUDA headers";
}

TEST(NvrtcTemplates, RolloutDeviceCodeCompiles) {
  GTEST_SKIP() << "no NVRTC: built without the CUDA headers";
}

TEST(NvrtcTemplates, ListedEntriesAreTheOnlyOnes) {
  GTEST_SKIP() << "no NVRTC: built without the CUDA headers";
}

#endif // PROOFC_HAVE_CUDA
