//===- HostBackendControlTest.cpp - Progress and cancellation of a run ----===//
#include "TestUtil.h"

#include "host/HostBackend.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace proofc::test {
namespace host_backend_control_test {

struct Workload {
  ProgramSpec program = v10Program();
  Dataset dataset = loadDataset(dataDir("nations"));
  TensorMap weights = readSafetensors(weightsFile("nations"));
  CandidateSet candidates;
  Workload() {
    CandidateOptions o;
    o.queries = 20;
    candidates = buildCandidates(dataset, o);
  }
};

const Workload &workload() {
  static const Workload w;
  return w;
}

TEST(HostBackendControl, ReportsEveryCandidateAndMatchesAnUncontrolledRun) {
  const Workload &w = workload();
  const int64_t n = static_cast<int64_t>(w.candidates.candidates.size());
  std::atomic<bool> cancel{false};
  std::vector<int64_t> reports;
  RunControl control;
  control.cancel = &cancel;
  control.progress = [&](int64_t done) { reports.push_back(done); };
  HostBackend backend(HostBackendOptions{2});
  BackendTimings t;
  const std::vector<Outcome> controlled =
      backend.run(EvalInputs{w.program, w.dataset, w.weights, w.candidates,
                             false, &control},
                  t);
  const std::vector<Outcome> plain =
      backend.run(EvalInputs{w.program, w.dataset, w.weights, w.candidates}, t);
  ASSERT_EQ(controlled.size(), plain.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(controlled[i].status, plain[i].status);
    EXPECT_EQ(controlled[i].depth, plain[i].depth);
    EXPECT_EQ(std::memcmp(&controlled[i].logp, &plain[i].logp, 4), 0);
  }
  ASSERT_FALSE(reports.empty());
  EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
  EXPECT_LE(reports.back(), n);
  EXPECT_GT(reports.size(), 2u);
}

TEST(HostBackendControl, CancelledAfterKReportsThrowsInterrupted) {
  const Workload &w = workload();
  const int64_t n = static_cast<int64_t>(w.candidates.candidates.size());
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    std::atomic<bool> cancel{false};
    int calls = 0;
    int64_t last = 0;
    RunControl control;
    control.cancel = &cancel;
    control.progress = [&](int64_t done) {
      last = done;
      if (++calls == 2)
        cancel = true;
    };
    HostBackend backend(HostBackendOptions{threads});
    BackendTimings t;
    try {
      backend.run(EvalInputs{w.program, w.dataset, w.weights, w.candidates,
                             false, &control},
                  t);
      FAIL() << "not interrupted";
    } catch (const Interrupted &e) {
      EXPECT_EQ(e.exitCode(), 130);
    }
    EXPECT_LE(calls, 1 + threads);
    EXPECT_LT(last, n);
    // The same backend runs again normally.
    cancel = false;
    EXPECT_EQ(backend
                  .run(EvalInputs{w.program, w.dataset, w.weights, w.candidates,
                                  false, &control},
                       t)
                  .size(),
              static_cast<size_t>(n));
  }
}

TEST(HostBackendControl, AFlagRaisedBeforeTheRunStopsItAtOnce) {
  const Workload &w = workload();
  std::atomic<bool> cancel{true};
  int calls = 0;
  RunControl control;
  control.cancel = &cancel;
  control.progress = [&](int64_t) { ++calls; };
  HostBackend backend(HostBackendOptions{2});
  BackendTimings t;
  EXPECT_THROW(backend.run(EvalInputs{w.program, w.dataset, w.weights,
                                      w.candidates, false, &control},
                           t),
               Interrupted);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(t.steps, 0);
}

} // namespace host_backend_control_test
} // namespace proofc::test
