//===- NonFiniteLogitTest.cpp - A non-finite logit fails the run ----------===//
//
// Finite but huge weights (a LayerNorm weight of 1e19 or 1e30) make logits
// overflow to +-inf and NaN. They used to be ranked (a NaN score compares
// false, so a positive with one ranked first) and written as `-nan`. Now a
// step with a non-finite logit has a NaN log-probability, the candidate's
// stays NaN, and RunSession fails naming the smallest such candidate, with
// its query, mode and entity — the same whatever the threads, chunks and
// step memo.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "host/HostBackend.h"
#include "host/HostPolicy.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

namespace proofc::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(NonFiniteLogit, StepLogProbabilityIsNaN) {
  auto logp = [](std::vector<float> logits) {
    return selectAction(logits.data(), static_cast<int32_t>(logits.size()))
        .logp;
  };
  EXPECT_TRUE(std::isnan(logp({1.f, std::nanf(""), 0.f})));
  EXPECT_TRUE(std::isnan(logp({1.f, kInf, 0.f})));
  // A -inf alone used to give a finite log-probability.
  EXPECT_TRUE(std::isnan(logp({1.f, -kInf, 0.f})));
  EXPECT_TRUE(std::isnan(logp({-kInf, -kInf})));
  EXPECT_FALSE(std::isnan(logp({1.f, 2.f, 0.f})));
  // One child: taken with log-probability 0, its logit unused (spec §4).
  EXPECT_EQ(logp({std::nanf("")}), 0.0);
  // The action stays in range whatever the logits.
  const std::vector<float> nan3(3, std::nanf(""));
  const int32_t index = selectAction(nan3.data(), 3).index;
  EXPECT_GE(index, 0);
  EXPECT_LT(index, 3);
}

/// nations' trained weights with the last LayerNorm's weight scaled.
std::string scaledWeights(const TempDir &dir, float factor) {
  TensorMap weights = readSafetensors(weightsFile("nations"));
  Tensor &gamma = weights.at("mlp.1.ln.weight");
  for (float &v : gamma.data)
    v *= factor;
  const std::string path = dir.file("huge.safetensors");
  writeSafetensors(path, weights);
  return path;
}

std::string runError(const std::string &weights, int threads, int64_t maxPool,
                     const std::string &report = "", int64_t memo = -1) {
  RunSessionOptions o = sessionOptions("nations", 10);
  o.weights = weights;
  o.maxPool = maxPool;
  o.report = report;
  HostBackend backend(HostBackendOptions{threads, memo});
  RunSession session(v10Program(), backend, "cpu", o);
  return errorOf([&] {
    RunOutput out = session.evaluate();
    session.writeOutputs(out, stdout);
  });
}

TEST(NonFiniteLogit, RunFailsNamingTheFirstCandidate) {
  TempDir dir;
  // 1e19: only some dot products overflow, so the first candidate with a
  // non-finite logit need not be candidate 0.
  for (float factor : {1e19f, 1e30f}) {
    SCOPED_TRACE(factor);
    const std::string weights = scaledWeights(dir, factor);
    RunSessionOptions o = sessionOptions("nations", 10);
    o.weights = weights;
    HostBackend loader;
    RunSession session(v10Program(), loader, "cpu", o);
    const CandidateSet &pool = session.candidates();
    const EvalInputs inputs{session.program(), session.dataset(),
                            session.weights(), pool, false};
    BackendTimings t;
    // The memo off: every candidate computes its every step.
    const std::vector<Outcome> raw =
        HostBackend(HostBackendOptions{1, 0}).run(inputs, t);
    size_t first = raw.size();
    for (size_t i = 0; i < raw.size() && first == raw.size(); ++i)
      if (std::isnan(raw[i].logp))
        first = i;
    ASSERT_LT(first, raw.size()) << "no candidate had a non-finite logit";
    std::printf("[ host     ] factor %g: first non-finite candidate %zu of "
                "%zu\n",
                factor, first, raw.size());

    const Candidate &c = pool.candidates[first];
    const Triple &q = pool.queries[c.query];
    const Dataset &ds = session.dataset();
    const std::string expected = fmt::format(
        "non-finite logit for candidate {}: query {} ({} {} {}), mode {}, "
        "entity {} ({})",
        first, c.query, ds.entities.name(q.h), ds.relations.name(q.r),
        ds.entities.name(q.t), modeName(c.mode), c.entity,
        ds.entities.name(c.entity));
    const std::string report = dir.file("report.json");
    const std::string one = runError(weights, 1, 0, report, 0);
    EXPECT_EQ(one.rfind(expected, 0), 0u) << one;
    EXPECT_FALSE(std::filesystem::exists(report)) << "nothing is written";
    // Threads, chunks (in candidate order) and the step memo, which passes
    // a NaN step on to every candidate that takes it (auto, and 16 entries:
    // full at once), name the same candidate.
    EXPECT_EQ(runError(weights, 1, 0), one);
    EXPECT_EQ(runError(weights, 4, 0), one);
    EXPECT_EQ(runError(weights, 3, 7), one);
    EXPECT_EQ(runError(weights, 2, 0, "", 16), one);
  }
}

TEST(NonFiniteLogit, TrainedWeightsHaveNone) {
  HostBackend backend(HostBackendOptions{2});
  RunSession session(v10Program(), backend, "cpu",
                     sessionOptions("nations", 10));
  const RunOutput out = session.evaluate();
  for (const Outcome &o : out.outcomes)
    ASSERT_FALSE(std::isnan(o.logp));
}

} // namespace
} // namespace proofc::test
