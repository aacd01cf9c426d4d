//===- GpuBackendTest.cpp - The CUDA backend vs the host backend ----------===//
//
// The reference bundle (TestBundle.h) run end to end by CudaBackend in each
// cond mode (native, emulated, host) on trained weights of real datasets,
// against the host backend on the same inputs: spec §7 — at least 99.9% of
// candidate outcomes (status and depth) equal and every metric within 1e-3.
// Skipped without a CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "TestUtil.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "runtime/cuda/TestBundle.h"

#include <cmath>
#include <iostream>
#include <map>
#include <memory>

namespace proofc::test {
namespace {

struct Case {
  const char *dataset;
  int64_t queries, corruptions;
  int32_t slots;
};

struct Inputs {
  Dataset ds;
  TensorMap weights;
  ProgramSpec program;
  CandidateSet set;
  std::vector<Outcome> host;
  double hostSeconds = 0;
};

/// Host outcomes are computed once per case and shared by the cond modes.
Inputs &inputsFor(const Case &c) {
  static std::map<std::string, std::unique_ptr<Inputs>> cache;
  std::unique_ptr<Inputs> &slot = cache[c.dataset];
  if (!slot) {
    slot = std::make_unique<Inputs>();
    slot->ds = loadDataset(dataDir(c.dataset));
    slot->weights = readSafetensors(weightsFile(c.dataset));
    slot->program = v10Program();
    slot->program.shape.B = c.slots;
    CandidateOptions opts;
    opts.corruptions = c.corruptions;
    opts.queries = c.queries;
    slot->set = buildCandidates(slot->ds, opts);
    EvalInputs in{slot->program, slot->ds, slot->weights, slot->set, false};
    BackendTimings t;
    slot->host = HostBackend().run(in, t);
    slot->hostSeconds = t.runSeconds;
  }
  return *slot;
}

void expectMetricsNear(const MetricSet &a, const MetricSet &b,
                       const std::string &what) {
  EXPECT_NEAR(a.mrr, b.mrr, 1e-3) << what;
  EXPECT_NEAR(a.hits1, b.hits1, 1e-3) << what;
  EXPECT_NEAR(a.hits3, b.hits3, 1e-3) << what;
  EXPECT_NEAR(a.hits10, b.hits10, 1e-3) << what;
}

class GpuBackendVsHost
    : public ::testing::TestWithParam<std::tuple<Case, CondMode>> {};

TEST_P(GpuBackendVsHost, AgreesPerSpecSection7) {
  PROOFC_REQUIRE_GPU();
  const Case &c = std::get<0>(GetParam());
  const CondMode mode = std::get<1>(GetParam());
  Inputs &in = inputsFor(c);
  EvalInputs inputs{in.program, in.ds, in.weights, in.set, false};

  static TempDir cacheDir; // shared by all runs: later ones hit the cache
  CudaBackendOptions options;
  options.cond = mode;
  options.cache.dir = cacheDir.path();
  options.cache.disabled = false;
  CudaBackend backend(makeTestBundle(in.program), "test.pcb", options);
  BackendTimings t;
  std::vector<Outcome> gpu = backend.run(inputs, t);
  const CudaRunInfo &info = backend.runInfo();
  EXPECT_EQ(info.cond, mode) << "no fallback expected on this device";

  ASSERT_EQ(gpu.size(), in.host.size());
  int64_t same = 0, proved = 0;
  double maxLogpDiff = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    const bool eq =
        gpu[i].status == in.host[i].status && gpu[i].depth == in.host[i].depth;
    same += eq;
    proved += in.host[i].status == ProofStatus::Proved;
    if (eq && gpu[i].status == ProofStatus::Proved)
      maxLogpDiff = std::max(maxLogpDiff, std::fabs(double(gpu[i].logp) -
                                                    double(in.host[i].logp)));
  }
  const double agreement = double(same) / double(gpu.size());
  std::cout << "[ gpu      ] " << c.dataset << " cond=" << condModeName(mode)
            << " candidates=" << gpu.size() << " proved=" << proved
            << " agree=" << agreement << " max|dlogp|=" << maxLogpDiff
            << " setup=" << t.setupSeconds << "s run=" << t.runSeconds
            << "s (host " << in.hostSeconds << "s) steps=" << t.steps
            << " launches=" << info.graphLaunches
            << " flagReads=" << info.hostFlagReads
            << " cache hits/misses=" << info.cache.hits << "/"
            << info.cache.misses << " compile=" << info.cache.compileSeconds
            << "s bytes=" << info.deviceBytes << " on " << info.device << "\n";
  EXPECT_GE(agreement, 0.999) << c.dataset;
  EXPECT_LT(maxLogpDiff, 1e-3) << c.dataset;
  Metrics a = computeMetrics(in.set, in.host), b = computeMetrics(in.set, gpu);
  expectMetricsNear(a.both, b.both, "both");
  expectMetricsNear(a.head, b.head, "head");
  expectMetricsNear(a.tail, b.tail, "tail");
  EXPECT_NEAR(a.meanDepth, b.meanDepth, 1e-2);
  EXPECT_EQ(info.cache.hits + info.cache.misses, 3);
  // The wall time of getting and loading the modules: never zero, and with
  // the compiles overlapped, no more than their sum plus the loads' time.
  EXPECT_GT(info.moduleSeconds, 0.0);
  EXPECT_LT(info.moduleSeconds,
            info.cache.compileSeconds + info.cache.loadSeconds + 0.5);
}

std::string
caseName(const ::testing::TestParamInfo<std::tuple<Case, CondMode>> &info) {
  std::string name = std::string(std::get<0>(info.param).dataset) + "_" +
                     condModeName(std::get<1>(info.param));
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Datasets, GpuBackendVsHost,
    ::testing::Combine(::testing::Values(Case{"countries_s1", 1, 10,
                                              256}, // N < B
                                         Case{"countries_s3", -1, 100, 256},
                                         Case{"nations", -1, 100, 256},
                                         Case{"kinship", 60, 100, 256},
                                         Case{"umls", 60, 100, 256}),
                       ::testing::Values(CondMode::Native, CondMode::Emulated,
                                         CondMode::Host)),
    caseName);

TEST(GpuBackend, ReportsOutOfRangeDeviceAndBrokenModules) {
  PROOFC_REQUIRE_GPU();
  Case c{"countries_s1", 1, 2, 4};
  Inputs &in = inputsFor(c);
  EvalInputs inputs{in.program, in.ds, in.weights, in.set, false};
  CudaBackendOptions options;
  options.cache.disabled = true;
  options.device = 99;
  BackendTimings t;
  auto runError = [&](const Bundle &bundle) {
    return errorOf(
        [&] { CudaBackend(bundle, "x.pcb", options).run(inputs, t); });
  };
  auto has = [](const std::string &text, const char *part) {
    return text.find(part) != std::string::npos;
  };
  std::string e = runError(makeTestBundle(in.program));
  EXPECT_TRUE(has(e, "CUDA: device 99 does not exist")) << e;

  options.device = 0;
  Bundle broken = makeTestBundle(in.program);
  broken.modules[1].source += "\n#error deliberately broken\n";
  e = runError(broken);
  EXPECT_TRUE(has(e, "x.pcb: module 'step'")) << e;
  EXPECT_TRUE(has(e, "deliberately broken")) << e;

  // The modules compile at once, each in its own thread: with two broken,
  // the error is the first one's, whichever thread fails first.
  Bundle twoBroken = makeTestBundle(in.program);
  twoBroken.modules[0].source += "\n#error the first broken module\n";
  twoBroken.modules[2].source += "\n#error the last broken module\n";
  e = runError(twoBroken);
  EXPECT_TRUE(has(e, "x.pcb: module 'engine'")) << e;
  EXPECT_TRUE(has(e, "the first broken module")) << e;

  Bundle wrongEntry = makeTestBundle(in.program);
  wrongEntry.plan.launches[0].entry = "no_such_kernel";
  e = runError(wrongEntry);
  EXPECT_TRUE(has(e, "has no kernel 'no_such_kernel'")) << e;
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
