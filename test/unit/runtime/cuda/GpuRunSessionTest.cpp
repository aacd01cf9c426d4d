//===- GpuRunSessionTest.cpp - Chunks and interrupts on the CUDA backend --===//
//
// On a GPU, in every cond mode: a pool run in chunks gives the outcomes of
// one pass bit for bit (a candidate's outcome never depends on its chunk);
// a raised cancellation flag drains the stream and ends the run with
// Interrupted in every mode, and the same backend then runs normally; the
// pool capacity the backend announces lets a small pool through whole.
// Skipped without a device.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "TestUtil.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "runtime/cuda/TestBundle.h"

#include "tooling/RunSession.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

namespace proofc::test {
namespace {

ProgramSpec gpuProgram() {
  ProgramSpec program = v10Program();
  program.shape.B = 64;
  return program;
}

class GpuRunSession : public ::testing::TestWithParam<CondMode> {};

TEST_P(GpuRunSession, ChunksEqualOnePassBitForBit) {
  PROOFC_REQUIRE_GPU();
  const ProgramSpec program = gpuProgram();
  CudaBackend backend(makeTestBundle(program), "test.pcb",
                      cachedOptionsFor(GetParam()));
  RunSession whole(program, backend, "", sessionOptions("nations", 12));
  const EvalInputs all{program, whole.dataset(), whole.weights(),
                       whole.candidates()};
  EXPECT_EQ(backend.poolCapacity(all), 0) << "a small pool fits whole";
  const RunOutput one = whole.evaluate();
  EXPECT_EQ(one.chunks, 1);

  RunSessionOptions o = sessionOptions("nations", 12);
  o.maxPool = 37;
  CudaBackend fresh(makeTestBundle(program), "test.pcb",
                    cachedOptionsFor(GetParam()));
  RunSession chunked(program, fresh, "", o);
  const RunOutput many = chunked.evaluate();
  const size_t n = one.outcomes.size();
  EXPECT_EQ(many.chunks, static_cast<int64_t>((n + 36) / 37));
  ASSERT_EQ(many.outcomes.size(), n);
  int64_t proved = 0;
  for (size_t i = 0; i < n; ++i) {
    const Outcome &a = one.outcomes[i], &b = many.outcomes[i];
    EXPECT_EQ(a.status, b.status) << i;
    EXPECT_EQ(a.depth, b.depth) << i;
    EXPECT_EQ(std::memcmp(&a.logp, &b.logp, 4), 0) << i;
    proved += a.status == ProofStatus::Proved;
  }
  EXPECT_GT(proved, 0);
  // The backend's counters add up over the chunks: three modules each.
  const CudaRunInfo &info = fresh.runInfo();
  EXPECT_EQ(info.cache.hits + info.cache.misses, 3 * many.chunks);
  if (GetParam() != CondMode::Host)
    EXPECT_GE(info.graphLaunches, many.chunks);
  std::printf("[ gpu      ] %s: %zu candidates, %lld chunks, %lld launches, "
              "run %.3f s (one pass %.3f s)\n",
              condModeName(GetParam()), n, static_cast<long long>(many.chunks),
              static_cast<long long>(info.graphLaunches),
              many.report.timings.runSeconds, one.report.timings.runSeconds);
}

TEST_P(GpuRunSession, CancelledRunDrainsThenTheBackendRunsAgain) {
  PROOFC_REQUIRE_GPU();
  const ProgramSpec program = gpuProgram();
  CudaBackend backend(makeTestBundle(program), "test.pcb",
                      cachedOptionsFor(GetParam()));
  RunSession session(program, backend, "", sessionOptions("kinship", 150));
  std::atomic<bool> cancel{false};
  RunControl control;
  control.cancel = &cancel;
  const EvalInputs inputs{
      program, session.dataset(), session.weights(), session.candidates(),
      false,   &control};
  BackendTimings t;

  // Raised before the run: stopped before (native) or after the first
  // launch or step, and drained.
  cancel = true;
  EXPECT_THROW(backend.run(inputs, t), Interrupted);

  // Raised mid-run from another thread: every mode stops (native inside
  // its single launch: the backend's cancel watcher ends the device's loop;
  // raised after the pool was done, the run is still Interrupted).
  cancel = false;
  std::thread raiser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  bool interrupted = false;
  try {
    backend.run(inputs, t);
  } catch (const Interrupted &) {
    interrupted = true;
  }
  raiser.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("[ gpu      ] %s: %zu candidates, interrupted %d after %.3f s\n",
              condModeName(GetParam()), session.candidates().candidates.size(),
              interrupted, seconds);
  EXPECT_TRUE(interrupted);

  // Unaffected afterwards: the same backend gives a full, correct result.
  cancel = false;
  const std::vector<Outcome> after = backend.run(inputs, t);
  RunSessionOptions small = sessionOptions("kinship", 150);
  CudaBackend fresh(makeTestBundle(program), "test.pcb",
                    cachedOptionsFor(GetParam()));
  RunSession again(program, fresh, "", small);
  const RunOutput reference = again.evaluate();
  ASSERT_EQ(after.size(), reference.outcomes.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].status, reference.outcomes[i].status) << i;
    EXPECT_EQ(after[i].depth, reference.outcomes[i].depth) << i;
  }
}

/// A plan with 32 MiB of device memory per candidate: kinship's first 150
/// queries (about 28000 candidates) need some 900 GiB, more than any GPU
/// here has. One pass is refused with what it asked and what was free; the
/// session runs the pool in the chunks the backend says fit, with the
/// outcomes of a normal plan. Every list runs its own corruptions
/// (--no-shared-lists), so that the chunks count every candidate; the
/// normal plan shares them, which changes no outcome.
TEST(GpuRunSessionMemory, APoolBeyondDeviceMemoryRunsInChunks) {
  PROOFC_REQUIRE_GPU();
  const ProgramSpec program = gpuProgram();
  Bundle heavy = makeTestBundle(program);
  heavy.plan.buffers.push_back(
      {"ballast", DType::I32, Extent{{"N", "8388608"}}, ""});
  CudaBackend backend(heavy, "heavy.pcb", cachedOptionsFor(CondMode::Native));
  RunSessionOptions unshared = sessionOptions("kinship", 150);
  unshared.shareLists = false;
  RunSession session(program, backend, "", unshared);
  const EvalInputs all{program, session.dataset(), session.weights(),
                       session.candidates()};
  const int64_t n =
      static_cast<int64_t>(session.candidates().candidates.size());
  const int64_t capacity = backend.poolCapacity(all);
  EXPECT_GT(capacity, 0);
  EXPECT_LT(capacity, n);

  BackendTimings t;
  try {
    backend.run(all, t);
    FAIL() << "one pass fitted";
  } catch (const Error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bytes of device memory"), std::string::npos) << what;
    EXPECT_NE(what.find("are free"), std::string::npos) << what;
    std::printf("[ gpu      ] one pass: %s\n", what.c_str());
  }

  const RunOutput chunked = session.evaluate();
  EXPECT_EQ(chunked.chunkSize, capacity);
  EXPECT_EQ(chunked.chunks, (n + capacity - 1) / capacity);
  CudaBackend normal(makeTestBundle(program), "test.pcb",
                     cachedOptionsFor(CondMode::Native));
  RunSession again(program, normal, "", sessionOptions("kinship", 150));
  const RunOutput one = again.evaluate();
  ASSERT_EQ(one.chunks, 1);
  ASSERT_EQ(chunked.outcomes.size(), one.outcomes.size());
  for (size_t i = 0; i < one.outcomes.size(); ++i) {
    const Outcome &a = one.outcomes[i], &b = chunked.outcomes[i];
    EXPECT_EQ(a.status, b.status) << i;
    EXPECT_EQ(a.depth, b.depth) << i;
    EXPECT_EQ(std::memcmp(&a.logp, &b.logp, 4), 0) << i;
  }
  std::printf("[ gpu      ] %lld candidates in %lld chunks of %lld, peak %zu "
              "bytes on device, run %.3f s\n",
              static_cast<long long>(n), static_cast<long long>(chunked.chunks),
              static_cast<long long>(capacity), backend.runInfo().deviceBytes,
              chunked.report.timings.runSeconds);
}

INSTANTIATE_TEST_SUITE_P(CondModes, GpuRunSession,
                         ::testing::Values(CondMode::Native, CondMode::Emulated,
                                           CondMode::Host),
                         condModeParamName);

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
