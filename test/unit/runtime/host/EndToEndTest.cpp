//===- EndToEndTest.cpp - Host backend on the shared datasets -------------===//
//
// (a) The host backend agrees with the reference prover per spec §7 on real
//     workloads with the trained weights.
// (b) With the trained weights, the full test protocol reproduces the table of
//     shared/weights/README.md for countries_s3 and nations.
// (c) Outcomes do not depend on the number of slots B or of threads, nor
//     outcomes and actions on the step memo (on, off, full).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "reference/ReferenceProver.h"
#include "runtime/host/HostTestUtil.h"

#include "host/HostBackend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

namespace proofc::test {
namespace {

struct Workload {
  ProgramSpec program = v10Program();
  Dataset dataset;
  TensorMap weights;
  CandidateSet candidates;
};

Workload loadWorkload(const std::string &name, int64_t maxQueries) {
  Workload w;
  w.dataset = loadDataset(dataDir(name));
  w.weights = readSafetensors(weightsFile(name));
  checkWeights(w.program, w.dataset, w.weights, weightsFile(name));
  CandidateOptions opts;
  opts.corruptions = 100;
  opts.seed = 0;
  opts.queries = maxQueries;
  w.candidates = buildCandidates(w.dataset, opts);
  return w;
}

std::vector<Outcome> runHost(const Workload &w, int32_t B, int threads,
                             BackendTimings *timingsOut = nullptr,
                             int64_t memo = -1,
                             ActionTrace *actions = nullptr) {
  ProgramSpec program = w.program;
  program.shape.B = B;
  EvalInputs inputs{program, w.dataset, w.weights, w.candidates};
  inputs.actions = actions;
  HostBackend backend(HostBackendOptions{threads, memo});
  BackendTimings timings;
  std::vector<Outcome> out = backend.run(inputs, timings);
  if (timingsOut)
    *timingsOut = timings;
  return out;
}

void expectMetricsNear(const Metrics &x, const Metrics &y, double tol) {
  auto near = [&](const MetricSet &a, const MetricSet &b, const char *what) {
    EXPECT_NEAR(a.mrr, b.mrr, tol) << what;
    EXPECT_NEAR(a.hits1, b.hits1, tol) << what;
    EXPECT_NEAR(a.hits3, b.hits3, tol) << what;
    EXPECT_NEAR(a.hits10, b.hits10, tol) << what;
  };
  near(x.head, y.head, "head");
  near(x.tail, y.tail, "tail");
  near(x.both, y.both, "both");
  EXPECT_NEAR(x.meanDepth, y.meanDepth, tol);
}

/// Spec §7 between the host backend and the reference prover.
void expectAgreesWithReference(const Workload &w) {
  const std::vector<Outcome> host = runHost(w, w.program.shape.B, 0);
  reference::ReferenceProver ref(w.dataset, &w.weights, w.program.shape);
  const std::vector<Outcome> expected = ref.proveAll(w.candidates);
  ASSERT_EQ(host.size(), expected.size());
  size_t agree = 0, proved = 0;
  double maxLogpDiff = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i].status != expected[i].status ||
        host[i].depth != expected[i].depth)
      continue;
    ++agree;
    if (host[i].status == ProofStatus::Proved) {
      ++proved;
      maxLogpDiff = std::max(
          maxLogpDiff, double(std::fabs(host[i].logp - expected[i].logp)));
    }
  }
  EXPECT_GE(double(agree), 0.999 * double(host.size()))
      << agree << " of " << host.size() << " candidates agree";
  EXPECT_GT(proved, 0u) << "the workload proves nothing: a weak comparison";
  EXPECT_LT(maxLogpDiff, 1e-3);
  expectMetricsNear(computeMetrics(w.candidates, host),
                    computeMetrics(w.candidates, expected), 1e-3);
  ::testing::Test::RecordProperty("candidates", std::to_string(host.size()));
  ::testing::Test::RecordProperty("agree", std::to_string(agree));
  ::testing::Test::RecordProperty("proved", std::to_string(proved));
  ::testing::Test::RecordProperty("max_logp_diff", std::to_string(maxLogpDiff));
}

TEST(HostEndToEnd, AgreesWithReferenceOnKinship) {
  // 15 queries (2,802 candidates): 18 s on 2 cores, 275 s under ASan and
  // UBSan, the longest test of the sanitized build, which looks for memory
  // errors and undefined behaviour (each code path once is what counts
  // there) and takes the first 4 (743 candidates, 45 proved).
  expectAgreesWithReference(
      loadWorkload("kinship", kUnderAddressSanitizer ? 4 : 15));
}

TEST(HostEndToEnd, AgreesWithReferenceOnCountriesS3) {
  expectAgreesWithReference(loadWorkload("countries_s3", -1));
}

/// One row of the shared/weights/README.md test-metrics table.
struct ReadmeRow {
  double mrr, hits1, hits3, hits10, mrrHead, mrrTail;
  int64_t proved, failed, truncated;
  double meanDepth;
  int64_t candidates;
};

void expectReadmeRow(const std::string &name, const ReadmeRow &row) {
  const Workload w = loadWorkload(name, -1);
  const Metrics m = computeMetrics(w.candidates, runHost(w, 256, 0));
  EXPECT_EQ(m.candidates, row.candidates);
  EXPECT_EQ(m.proved, row.proved);
  EXPECT_EQ(m.failed, row.failed);
  EXPECT_EQ(m.truncated, row.truncated);
  // The table prints 4 (3 for depth) decimals.
  EXPECT_NEAR(m.meanDepth, row.meanDepth, 1e-3);
  EXPECT_NEAR(m.both.mrr, row.mrr, 1e-3);
  EXPECT_NEAR(m.both.hits1, row.hits1, 1e-3);
  EXPECT_NEAR(m.both.hits3, row.hits3, 1e-3);
  EXPECT_NEAR(m.both.hits10, row.hits10, 1e-3);
  EXPECT_NEAR(m.head.mrr, row.mrrHead, 1e-3);
  EXPECT_NEAR(m.tail.mrr, row.mrrTail, 1e-3);
}

TEST(HostEndToEnd, ReproducesReadmeCountriesS3) {
  expectReadmeRow("countries_s3", {0.0948, 0.0625, 0.0833, 0.1042, 0.0476,
                                   0.1421, 194, 1594, 3060, 15.053, 4848});
}

TEST(HostEndToEnd, ReproducesReadmeNations) {
  expectReadmeRow("nations", {0.3335, 0.0697, 0.3358, 0.9826, 0.3412, 0.3259,
                              434, 2393, 371, 3.937, 3198});
}

TEST(HostEndToEnd, OutcomesIndependentOfSlotsAndThreads) {
  const Workload w = loadWorkload("kinship", 4);
  const std::vector<Outcome> base = runHost(w, 256, 1);
  for (auto [B, threads] : {std::pair{1, 1}, {7, 2}, {64, 3}, {1000, 2}}) {
    SCOPED_TRACE(testing::Message() << "B=" << B << " threads=" << threads);
    // Bitwise: the same float operations in the same order.
    expectSameOutcomes(runHost(w, B, threads), base);
  }
}

/// The step memo takes steps it has seen from the memo (StepMemo.h): bit for
/// bit the steps computed, so outcomes and recorded actions are those of the
/// memo off, whatever the threads, slots and the memo's size (16 entries:
/// full after the first steps, the rest computed again).
TEST(HostEndToEnd, StepMemoChangesNoOutcomeOrAction) {
  for (const char *name : {"kinship", "family"}) {
    SCOPED_TRACE(name);
    const Workload w = loadWorkload(name, 6);
    ActionTrace offActions;
    const std::vector<Outcome> off =
        runHost(w, 256, 1, nullptr, 0, &offActions);
    for (auto [B, threads, memo] : {std::tuple{256, 1, int64_t{-1}},
                                    {7, 3, int64_t{-1}},
                                    {1000, 2, int64_t{16}},
                                    {64, 4, int64_t{1} << 20}}) {
      ActionTrace actions;
      BackendTimings timings;
      SCOPED_TRACE(testing::Message()
                   << "B=" << B << " threads=" << threads << " memo=" << memo);
      const std::vector<Outcome> on =
          runHost(w, B, threads, &timings, memo, &actions);
      expectSameOutcomes(on, off);
      EXPECT_EQ(actions.actions, offActions.actions);
    }
  }
}

/// The step memo keys a relevant step by its candidate: RelevantSteps
/// (TestUtil.h) says how its candidates would tell a memo that shared such a
/// step (one candidate handed another's proof or loop).
TEST(HostEndToEnd, RelevantStepsAreTheCandidatesOwn) {
  TempDir dir;
  const RelevantSteps rs = relevantSteps(dir);
  ProgramSpec program = v10Program();
  program.shape.B = 16; // every candidate in the first wave
  const TensorMap weights = initWeights(program, rs.ds, 1);
  const EvalInputs inputs{program, rs.ds, weights, rs.set, false};
  for (int64_t memo : {int64_t{0}, int64_t{-1}}) {
    SCOPED_TRACE(memo);
    BackendTimings t;
    expectRelevantStepsScenario(
        rs, HostBackend(HostBackendOptions{1, memo}).run(inputs, t),
        program.shape.D);
  }
}

/// Hand-made candidates on a toy dataset with random weights: a candidate
/// never proves itself (here it loops through two rules until D), and
/// factsIncludeValid reaches the engine.
TEST(HostEndToEnd, ToyCornerCasesAgreeWithReference) {
  // a, b, c = 0, 1, 2; p, q, r, s = 0, 1, 2, 3.
  Dataset ds = makeDataset({"a", "b", "c"}, {"p", "q", "r", "s"},
                           {{"a", "p", "b"}, {"a", "q", "c"}},
                           "p(X,Y) :- r(X,Y).\nr(X,Y) :- p(X,Y).\n"
                           "s(X,Y) :- q(X,Y).\np(X,Y) :- q(X,Y).");
  ds.valid.push_back({1, 1, 2}); // q(b, c)
  const ProgramSpec program = v10Program();
  const TensorMap weights = initWeights(program, ds, 3);
  CandidateSet set;
  set.queries = {{0, 1, 2}, {1, 3, 2}, {0, 3, 2}, {0, 0, 2}};
  for (int32_t q = 0; q < 4; ++q)
    set.candidates.push_back({set.queries[q], q, Mode::Tail, set.queries[q].t});
  for (bool includeValid : {false, true}) {
    EvalInputs inputs{program, ds, weights, set, includeValid};
    BackendTimings timings;
    const std::vector<Outcome> host =
        HostBackend(HostBackendOptions{1}).run(inputs, timings);
    reference::ReferenceProver ref(ds, &weights, program.shape, includeValid);
    const std::vector<Outcome> expected = ref.proveAll(set);
    for (size_t i = 0; i < host.size(); ++i) {
      EXPECT_EQ(host[i].status, expected[i].status) << i << " " << includeValid;
      EXPECT_EQ(host[i].depth, expected[i].depth) << i << " " << includeValid;
      EXPECT_NEAR(host[i].logp, expected[i].logp, 1e-4);
    }
    // q(a, c) has only itself as a fact and no rule: FAILED at once.
    EXPECT_EQ(host[0].status, ProofStatus::Failed);
    EXPECT_EQ(host[0].depth, 1);
    // s(b, c) -> q(b, c): a fact only when valid.tsv is in F.
    EXPECT_EQ(host[1].status,
              includeValid ? ProofStatus::Proved : ProofStatus::Failed);
    EXPECT_EQ(host[1].depth, 2);
    // s(a, c) -> q(a, c), a train fact: proved with one choice, logp 0.
    EXPECT_EQ(host[2].status, ProofStatus::Proved);
    EXPECT_EQ(host[2].logp, 0.f);
    EXPECT_GT(timings.steps, 0);
  }
  // p(a, b) never proves itself: its fact is skipped at every depth, and the
  // only ways on are the cycle p -> r -> p and q(a, b), which fails.
  reference::ReferenceProver ref(ds, &weights, program.shape);
  const Outcome self = ref.prove({0, 0, 1});
  EXPECT_NE(self.status, ProofStatus::Proved);
  CandidateSet selfSet;
  selfSet.queries = {{0, 0, 1}};
  selfSet.candidates = {{{0, 0, 1}, 0, Mode::Tail, 1}};
  BackendTimings timings;
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1})
          .run(EvalInputs{program, ds, weights, selfSet}, timings);
  EXPECT_EQ(host[0].status, self.status);
  EXPECT_EQ(host[0].depth, self.depth);
}

/// The V10 workload (kinship test, first 100 queries, 100 corruptions, both
/// modes). Run with --gtest_also_run_disabled_tests to time it.
TEST(HostEndToEnd, DISABLED_V10KinshipTiming) {
  const Workload w = loadWorkload("kinship", 100);
  BackendTimings timings;
  const Metrics m = computeMetrics(w.candidates, runHost(w, 256, 0, &timings));
  EXPECT_EQ(m.candidates, 18745); // the V10 workload definition
  std::printf("V10 kinship: %lld candidates, setup %.3f s, run %.3f s, %lld "
              "steps; MRR %.4f, proved %lld, failed %lld, truncated %lld, "
              "mean depth %.3f\n",
              static_cast<long long>(m.candidates), timings.setupSeconds,
              timings.runSeconds, static_cast<long long>(timings.steps),
              m.both.mrr, static_cast<long long>(m.proved),
              static_cast<long long>(m.failed),
              static_cast<long long>(m.truncated), m.meanDepth);
}

} // namespace
} // namespace proofc::test
