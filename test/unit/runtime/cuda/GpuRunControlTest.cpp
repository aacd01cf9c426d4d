//===- GpuRunControlTest.cpp - Non-finite logits and cancel on the GPU ----===//
//
// On a GPU (skipped without one, and without compiled bundles where they
// are needed):
//  - a non-finite logit fails a CUDA run with the host's error, naming the
//    same first candidate (the generated proofc_policy and the test fixture
//    make the step's log-probability NaN; the step memo passes it on; the
//    session fails before writing anything);
//  - a raised cancellation flag ends a long run within a second in every
//    cond mode, the native WHILE graph and the persistent kernel included
//    (one launch that runs the whole pool): the backend's cancel watcher
//    writes N to the pool counter beside the running kernels.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "TestUtil.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "runtime/cuda/TestBundle.h"

#include "host/HostBackend.h"
#include "tooling/RunSession.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

namespace proofc::test {
namespace {

using Clock = std::chrono::steady_clock;

/// Every bundle to try: the hand-built reference bundle (fixture policy)
/// and the compiled ones (step and persistent schedules).
std::vector<std::pair<std::string, Bundle>> bundles(int32_t B) {
  std::vector<std::pair<std::string, Bundle>> all;
  ProgramSpec program = v10Program();
  program.shape.B = B;
  all.emplace_back("test.pcb", makeTestBundle(program));
  for (const std::string &path : compiledBundlePaths())
    all.emplace_back(path, readBundle(path));
  return all;
}

std::string sessionError(const ProgramSpec &program, RunSessionOptions o,
                         Backend &backend) {
  RunSession session(program, backend, "", o);
  return errorOf([&] {
    RunOutput out = session.evaluate();
    session.writeOutputs(out, stdout);
  });
}

class GpuRunControl : public ::testing::TestWithParam<CondMode> {};

TEST_P(GpuRunControl, NonFiniteLogitFailsAsOnTheHost) {
  PROOFC_REQUIRE_GPU();
  TempDir dir;
  // The last LayerNorm's weight times 1e30: every dot product overflows,
  // so the first candidate with a step of two or more children is named,
  // whatever the rounding of either backend.
  TensorMap weights = readSafetensors(weightsFile("nations"));
  for (float &v : weights.at("mlp.1.ln.weight").data)
    v *= 1e30f;
  const std::string huge = dir.file("huge.safetensors");
  writeSafetensors(huge, weights);
  RunSessionOptions o = sessionOptions("nations", 10);
  o.weights = huge;
  o.report = dir.file("report.json");
  HostBackend host(HostBackendOptions{2});
  const std::string expected = sessionError(v10Program(), o, host);
  ASSERT_EQ(expected.rfind("non-finite logit for candidate ", 0), 0u)
      << expected;
  for (auto &[path, bundle] : bundles(64)) {
    SCOPED_TRACE(path);
    CudaBackend cuda(bundle, path, cachedOptionsFor(GetParam()));
    EXPECT_EQ(sessionError(bundle.program, o, cuda), expected);
    EXPECT_FALSE(std::filesystem::exists(o.report));
  }
  std::printf("[ gpu      ] %s\n", expected.c_str());
}

TEST_P(GpuRunControl, CancelEndsALongRunWithinASecond) {
  PROOFC_REQUIRE_GPU();
  if (!std::filesystem::exists(dataDir("wn18rr")))
    GTEST_SKIP() << "dataset wn18rr not present";
  // Every corruption of 300 queries: about 24.6 M candidates, many seconds
  // of GPU work in one launch (native WHILE graph; persistent kernel).
  RunSessionOptions bigOptions = sessionOptions("wn18rr", 300);
  bigOptions.corruptions = 0;
  HostBackend loader; // the sessions below only load; runs are direct
  RunSession big(v10Program(), loader, "cpu", bigOptions);
  RunSessionOptions smallOptions = sessionOptions("wn18rr", 2);
  smallOptions.corruptions = 10;
  RunSession small(v10Program(), loader, "cpu", smallOptions);
  for (auto &[path, bundle] : bundles(256)) {
    SCOPED_TRACE(path);
    const ProgramSpec &program = bundle.program;
    CudaBackend backend(bundle, path, cachedOptionsFor(GetParam()));
    // Modules compiled and cached first: the long run's setup is short.
    BackendTimings t;
    const EvalInputs warm{program, small.dataset(), small.weights(),
                          small.candidates()};
    backend.run(warm, t);

    std::atomic<bool> cancel{false};
    RunControl control;
    control.cancel = &cancel;
    const EvalInputs inputs{program,          big.dataset(), big.weights(),
                            big.candidates(), false,         &control};
    Clock::time_point raised{};
    std::thread raiser([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
      raised = Clock::now();
      cancel = true;
    });
    const Clock::time_point start = Clock::now();
    bool interrupted = false;
    try {
      backend.run(inputs, t);
    } catch (const Interrupted &) {
      interrupted = true;
    }
    const Clock::time_point end = Clock::now();
    raiser.join();
    const double total = std::chrono::duration<double>(end - start).count();
    const double after = std::chrono::duration<double>(end - raised).count();
    std::printf("[ gpu      ] %s %s: %zu candidates, interrupted %d, setup "
                "%.3f s, returned %.3f s after the cancel (%.3f s in all)\n",
                condModeName(GetParam()), path.c_str(),
                big.candidates().candidates.size(), interrupted, t.setupSeconds,
                after, total);
    EXPECT_TRUE(interrupted);
    EXPECT_LT(t.setupSeconds, 2.5)
        << "cancelled during the setup: the device's side was not tested";
    EXPECT_GE(total, 2.5) << "the run ended before the cancel: make it longer";
    EXPECT_LT(after, 1.0) << "the cancel took more than a second";

    // The same backend runs normally afterwards.
    cancel = false;
    const std::vector<Outcome> again = backend.run(warm, t);
    EXPECT_EQ(again.size(), small.candidates().candidates.size());
  }
}

INSTANTIATE_TEST_SUITE_P(CondModes, GpuRunControl,
                         ::testing::Values(CondMode::Native, CondMode::Emulated,
                                           CondMode::Host),
                         condModeParamName);

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
