//===- GpuSessionTest.cpp - The load-once Session on a CUDA GPU -----------===//
//
// A Session keeps the CUDA backend's device state between calls: each call
// must still equal a fresh run with its weights, bit for bit, whatever ran
// before (weights A, B, A; a cancelled call); later calls load no module;
// weights already on the GPU (device pointers, as torch CUDA tensors give)
// equal the same weights given from the host, with one device worker or
// two. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/GpuTestUtil.h"
#include "session/SessionAccess.h"

#include "bundle/Bundle.h"
#include "proofc/runtime/Session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

using namespace proofc;
using namespace proofc::test;

namespace {

SessionOptions kinshipSession(int64_t queries = 12) {
  return splitSession("kinship", queries, 30, 7);
}

/// A fresh backend and session, one call: what `proofc-run` would give.
std::vector<Outcome> freshRun(const Bundle &bundle, const std::string &path,
                              CondMode mode, const TensorMap &weights) {
  CudaBackend backend(bundle, path, cachedOptionsFor(mode));
  Session session =
      SessionAccess::make(bundle.program, {&backend}, "cuda", kinshipSession());
  return session.evaluate(weights).outcomes;
}

/// One compiled bundle bound in a session on kinship, with its trained
/// weights read once: what every test below starts from.
struct BoundBundle {
  BoundBundle(const std::string &path, CondMode mode)
      : path(path), bundle(readBundle(path)),
        backend(bundle, path, cachedOptionsFor(mode)),
        session(SessionAccess::make(bundle.program, {&backend}, "cuda",
                                    kinshipSession())),
        trained(session.loadWeights(weightsFile("kinship"))) {}
  std::string path;
  Bundle bundle;
  CudaBackend backend;
  Session session;
  WeightsFile trained;
};

/// `weights` copied to GPU 0 and viewed there, as torch CUDA tensors are.
TensorViews onDevice(GpuContext &gpu, const TensorMap &weights) {
  TensorViews views;
  for (const auto &[name, t] : weights) {
    TensorView v{reinterpret_cast<const void *>(gpu.upload(t.data)), t.shape};
    v.memory = MemoryKind::Cuda;
    v.device = 0;
    views[name] = v;
  }
  return views;
}

class GpuSession : public ::testing::TestWithParam<CondMode> {};

TEST_P(GpuSession, WeightsABAEqualFreshRunsAndNothingIsReloaded) {
  PROOFC_REQUIRE_GPU();
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    BoundBundle bound(path, GetParam());
    const Bundle &bundle = bound.bundle;
    CudaBackend &backend = bound.backend;
    Session &session = bound.session;
    const WeightsFile &a = bound.trained;
    const TensorMap b = initWeights(bundle.program, session.dataset(), 5);

    const SessionResult first = session.evaluate(a);
    const SessionResult other = session.evaluate(b);
    const CudaRunInfo afterB = backend.runInfo();
    const SessionResult again = session.evaluate(a);
    expectSameOutcomes(first.outcomes, again.outcomes);
    expectSameOutcomes(first.outcomes,
                       freshRun(bundle, path, GetParam(), a.tensors));
    expectSameOutcomes(other.outcomes, freshRun(bundle, path, GetParam(), b));
    // The calls after the first loaded and compiled nothing.
    for (const CudaRunInfo *info : {&afterB, &backend.runInfo()}) {
      EXPECT_EQ(info->cache.hits + info->cache.misses, 0);
      EXPECT_EQ(info->moduleSeconds, 0.0);
    }
    std::printf("[ gpu      ] %s %s: call 1 %.2f ms (setup %.2f, run %.2f); "
                "call 3 %.2f ms (setup %.2f, run %.2f)\n",
                path.c_str(), condModeName(GetParam()), first.callSeconds * 1e3,
                first.setupSeconds * 1e3, first.runSeconds * 1e3,
                again.callSeconds * 1e3, again.setupSeconds * 1e3,
                again.runSeconds * 1e3);
  }
}

TEST_P(GpuSession, ACancelledCallLeavesTheSessionExact) {
  PROOFC_REQUIRE_GPU();
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    BoundBundle bound(path, GetParam());
    const Bundle &bundle = bound.bundle;
    CudaBackend &backend = bound.backend;
    Session &session = bound.session;
    const WeightsFile &a = bound.trained;
    std::atomic<bool> cancel{true}; // raised before the call
    EvaluateControl control;
    control.cancel = &cancel;
    EXPECT_THROW(session.evaluate(a, control), Interrupted);
    cancel = false;
    expectSameOutcomes(session.evaluate(a, control).outcomes,
                       freshRun(bundle, path, GetParam(), a.tensors));
  }
}

TEST_P(GpuSession, DeviceWeightsEqualHostWeights) {
  PROOFC_REQUIRE_GPU();
  GpuContext gpu;
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    BoundBundle bound(path, GetParam());
    const Bundle &bundle = bound.bundle;
    CudaBackend &backend = bound.backend;
    Session &session = bound.session;
    const WeightsFile &a = bound.trained;
    const TensorMap b = initWeights(bundle.program, session.dataset(), 9);
    // Device weights first (the setup's buffers have no weights yet), then
    // host weights, then device weights again.
    const SessionResult deviceA = session.evaluate(onDevice(gpu, a.tensors));
    const SessionResult hostB = session.evaluate(b);
    const SessionResult deviceB = session.evaluate(onDevice(gpu, b));
    expectSameOutcomes(deviceA.outcomes,
                       freshRun(bundle, path, GetParam(), a.tensors));
    expectSameOutcomes(deviceB.outcomes, hostB.outcomes);
    const std::string report = deviceA.reportJson();
    EXPECT_NE(report.find("\"in_memory\": \"cuda\""), std::string::npos)
        << report;

    TensorViews elsewhere = onDevice(gpu, b);
    elsewhere.begin()->second.device = 1;
    EXPECT_EQ(errorOf([&] { session.evaluate(elsewhere); }),
              "weights: tensor '" + elsewhere.begin()->first +
                  "' is on cuda:1, the session runs on cuda:0");
  }
}

TEST(GpuSessionOpen, ABundlePathAndCudaDevice) {
  PROOFC_REQUIRE_GPU();
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    SessionOptions o = kinshipSession(4);
    o.device = "cuda:0";
    Session session(path, o);
    EXPECT_EQ(session.backendName(), "cuda");
    const SessionResult r = session.evaluateFile(weightsFile("kinship"));
    EXPECT_EQ(r.outcomes.size(), session.candidates().candidates.size());
    o.device = "cuda:99";
    EXPECT_NE(errorOf([&] {
                Session(path, o).evaluateFile(weightsFile("kinship"));
              }).find("device 99 does not exist"),
              std::string::npos);
  }
}

// Two workers of one GPU (--workers-per-device's auto on CUDA), the pool
// cut into blocks that both take: the same outcomes as one worker, and
// weights already on that GPU are read by both.
TEST(GpuSessionOpen, TwoWorkersOfOneDeviceEqualOneAndTakeItsTensors) {
  PROOFC_REQUIRE_GPU();
  GpuContext gpu;
  for (const std::string &path : compiledBundlePaths()) {
    SCOPED_TRACE(path);
    SessionOptions o = kinshipSession(12);
    o.device = "cuda";
    o.blockCandidates = 100;
    o.workersPerDevice = 1;
    Session one(path, o);
    const WeightsFile trained = one.loadWeights(weightsFile("kinship"));
    const SessionResult expected = one.evaluate(trained.tensors);
    o.workersPerDevice = 0; // auto: two on CUDA
    Session two(path, o);
    const SessionResult fromDevice =
        two.evaluate(onDevice(gpu, trained.tensors));
    expectSameOutcomes(fromDevice.outcomes, expected.outcomes);
    expectSameOutcomes(two.evaluate(trained.tensors).outcomes,
                       expected.outcomes);
    const std::string report = fromDevice.reportJson();
    EXPECT_NE(report.find(", 2 workers per device\""), std::string::npos)
        << report;
    EXPECT_NE(report.find("\"in_memory\": \"cuda\""), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(CondModes, GpuSession,
                         ::testing::Values(CondMode::Native, CondMode::Emulated,
                                           CondMode::Host),
                         condModeParamName);

} // namespace
