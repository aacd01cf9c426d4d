//===- RolloutsTest.cpp - Session::rollouts() on the host backend ---------===//
//
// docs/rollouts.md: greedy rollouts of a session's candidates reproduce its
// evaluator's outcomes (status, depth, log-probability, bit for bit); the
// tensors are consistent (every step's state is the previous step's chosen
// derived state, the table holds each state once, the counts and the -1
// padding); sampled rollouts are a function of (seed, episode base) and
// the request is checked by field.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "host/HostBackend.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Rollouts.h"
#include "proofc/runtime/Session.h"
#include "session/SessionAccess.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <vector>

using namespace proofc;
using namespace proofc::test;

namespace rollouts_test {

SessionOptions kinshipSession() { return splitSession("kinship", 3, 10, 3); }

template <typename T> std::vector<T> copyOf(const TensorView &v) {
  size_t n = 1;
  for (int64_t d : v.shape)
    n *= static_cast<size_t>(d);
  std::vector<T> out(n);
  if (n > 0)
    std::memcpy(out.data(), v.data, n * sizeof(T));
  return out;
}

/// The tensors of one call, copied (the views die at the next call).
struct Copied {
  std::vector<int32_t> status, depth, triple, states, stepEpisode, stepState,
      stepDerived, stepCount, stepAction;
  std::vector<uint8_t> positive;
  std::vector<float> logp, stepLogp;
  int64_t E = 0, U = 0, T = 0;
  bool operator==(const Copied &o) const {
    return status == o.status && depth == o.depth && triple == o.triple &&
           states == o.states && stepEpisode == o.stepEpisode &&
           stepState == o.stepState && stepDerived == o.stepDerived &&
           stepCount == o.stepCount && stepAction == o.stepAction &&
           positive == o.positive && logp == o.logp && stepLogp == o.stepLogp;
  }
};

Copied copy(const Trajectories &t) {
  Copied c;
  c.status = copyOf<int32_t>(t.status);
  c.depth = copyOf<int32_t>(t.depth);
  c.triple = copyOf<int32_t>(t.triple);
  c.positive = copyOf<uint8_t>(t.positive);
  c.logp = copyOf<float>(t.logp);
  c.states = copyOf<int32_t>(t.states);
  c.stepEpisode = copyOf<int32_t>(t.stepEpisode);
  c.stepState = copyOf<int32_t>(t.stepState);
  c.stepDerived = copyOf<int32_t>(t.stepDerived);
  c.stepCount = copyOf<int32_t>(t.stepCount);
  c.stepAction = copyOf<int32_t>(t.stepAction);
  c.stepLogp = copyOf<float>(t.stepLogp);
  c.E = t.episodes;
  c.U = t.numStates;
  c.T = t.steps;
  return c;
}

/// The session's candidates as a request (positives flagged).
RolloutRequest candidatesRequest(Session &session, int32_t K) {
  RolloutRequest r;
  const CandidateSet &set = session.candidates();
  std::vector<uint8_t> positive(set.candidates.size(), 0);
  for (const CandidateGroup &g : set.groups)
    positive[g.begin] = 1;
  for (const Candidate &c : set.candidates)
    r.triples.push_back(c.triple);
  r.positive = positive;
  r.episodesPerTriple = K;
  return r;
}

/// Every layout rule of docs/rollouts.md on `c` for `request`.
void expectConsistent(const Copied &c, const RolloutRequest &request,
                      const ShapeParams &shape, int32_t R) {
  const int64_t K = request.episodesPerTriple;
  ASSERT_EQ(c.E, static_cast<int64_t>(request.triples.size()) * K);
  const int32_t A = shape.A, S = shape.S;
  ASSERT_EQ(c.states.size(), static_cast<size_t>(c.U) * A * 3);
  ASSERT_EQ(c.stepDerived.size(), static_cast<size_t>(c.T) * S);
  std::set<std::vector<int32_t>> distinct;
  for (int64_t u = 0; u < c.U; ++u)
    distinct.insert(std::vector<int32_t>(c.states.begin() + u * A * 3,
                                         c.states.begin() + (u + 1) * A * 3));
  EXPECT_EQ(static_cast<int64_t>(distinct.size()), c.U);
  int64_t row = 0;
  for (int64_t e = 0; e < c.E; ++e) {
    const int32_t n = static_cast<int32_t>(e / K);
    EXPECT_EQ(c.triple[e], n);
    EXPECT_EQ(c.positive[e], request.positive[n]);
    ASSERT_GE(c.depth[e], 1);
    ASSERT_LE(c.depth[e], shape.D);
    const Triple &t = request.triples[n];
    const int32_t *start = c.states.data() + c.stepState[row] * A * 3;
    EXPECT_EQ(start[0], t.r);
    EXPECT_EQ(start[1], t.h);
    EXPECT_EQ(start[2], t.t);
    double logp = 0;
    for (int32_t s = 0; s < c.depth[e]; ++s, ++row) {
      ASSERT_LT(row, c.T);
      EXPECT_EQ(c.stepEpisode[row], e);
      const int32_t k = c.stepCount[row], a = c.stepAction[row];
      ASSERT_GE(k, 1);
      ASSERT_LE(k, S);
      ASSERT_GE(a, 0);
      ASSERT_LT(a, k);
      for (int32_t i = 0; i < S; ++i) {
        const int32_t id = c.stepDerived[row * S + i];
        if (i < k) {
          EXPECT_GE(id, 0);
          EXPECT_LT(id, c.U);
        } else {
          EXPECT_EQ(id, -1);
        }
      }
      if (k == 1)
        EXPECT_EQ(c.stepLogp[row], 0.f);
      else
        EXPECT_LE(c.stepLogp[row], 0.f);
      logp += c.stepLogp[row];
      const int32_t next = c.stepDerived[row * S + a];
      if (s + 1 < c.depth[e]) {
        EXPECT_EQ(c.stepState[row + 1], next);
      } else {
        const int32_t pred = c.states[next * A * 3];
        const int32_t status = c.status[e];
        if (status == int32_t(ProofStatus::Proved))
          EXPECT_EQ(pred, R);
        else if (status == int32_t(ProofStatus::Failed))
          EXPECT_EQ(pred, R + 1);
        else
          EXPECT_EQ(c.depth[e], shape.D);
      }
    }
    EXPECT_NEAR(c.logp[e], logp, 1e-4 * (1 + std::fabs(logp)));
  }
  EXPECT_EQ(row, c.T);
}

TEST(Rollouts, GreedyRolloutsEqualTheEvaluatorsOutcomes) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const WeightsFile weights = session.loadWeights(weightsFile("kinship"));
  const SessionResult evaluated = session.evaluate(weights);
  RolloutRequest request = candidatesRequest(session, 2);
  request.mode = SelectMode::Greedy;
  request.temperature = 0.25f; // not used by greedy
  const Copied c = copy(session.rollouts(request, weights));
  ASSERT_EQ(c.E, 2 * static_cast<int64_t>(evaluated.outcomes.size()));
  int proved = 0;
  for (int64_t e = 0; e < c.E; ++e) {
    const Outcome &o = evaluated.outcomes[static_cast<size_t>(e / 2)];
    EXPECT_EQ(c.status[e], static_cast<int32_t>(o.status)) << "episode " << e;
    EXPECT_EQ(c.depth[e], o.depth) << "episode " << e;
    EXPECT_EQ(c.logp[e], o.logp) << "episode " << e;
    proved += o.status == ProofStatus::Proved;
  }
  EXPECT_GT(proved, 0); // the trained policy proves some
  expectConsistent(c, request, session.program().shape,
                   session.dataset().numRelations());
}

TEST(Rollouts, SampledRolloutsAreAFunctionOfSeedAndEpisodeBase) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const WeightsFile weights = session.loadWeights(weightsFile("kinship"));
  RolloutRequest request = candidatesRequest(session, 4);
  request.seed = 17;
  request.episodeBase = 1000;
  const Copied a = copy(session.rollouts(request, weights));
  expectConsistent(a, request, session.program().shape,
                   session.dataset().numRelations());
  // One thread or two, views or a map: the same trajectories.
  HostBackend single(HostBackendOptions{1});
  Session other =
      SessionAccess::make(v10Program(), {&single}, "cpu", kinshipSession());
  EXPECT_TRUE(copy(other.rollouts(request, weights.tensors)) == a);
  EXPECT_TRUE(copy(session.rollouts(request, weights)) == a);
  // Another episode base or seed: other draws.
  RolloutRequest shifted = request;
  shifted.episodeBase = 1001;
  EXPECT_FALSE(copy(session.rollouts(shifted, weights)) == a);
  RolloutRequest reseeded = request;
  reseeded.seed = 18;
  EXPECT_FALSE(copy(session.rollouts(reseeded, weights)) == a);
  // The repeats of a triple are different episodes: some differ.
  bool differ = false;
  for (int64_t e = 0; e + 1 < a.E; e += 4)
    differ |= a.depth[e] != a.depth[e + 1] || a.logp[e] != a.logp[e + 1];
  EXPECT_TRUE(differ);
  // Episode e of base b is episode e - 1 of base b + 1: the same draws.
  RolloutRequest one = request;
  one.triples = {request.triples[1]};
  one.positive = {request.positive[1]};
  one.episodesPerTriple = 1;
  one.episodeBase = request.episodeBase + 4; // triple 1, repeat 0
  const Copied alone = copy(session.rollouts(one, weights));
  EXPECT_EQ(alone.depth[0], a.depth[4]);
  EXPECT_EQ(alone.logp[0], a.logp[4]);
  EXPECT_EQ(alone.status[0], a.status[4]);
}

TEST(Rollouts, RequestsAreCheckedByField) {
  HostBackend backend(HostBackendOptions{1});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const TensorMap weights = initWeights(v10Program(), session.dataset(), 1);
  RolloutRequest good;
  good.triples = {{0, 0, 1}};
  good.positive = {1};
  EXPECT_NO_THROW(session.rollouts(good, weights));
  auto expectError = [&](RolloutRequest r, const std::string &words) {
    try {
      session.rollouts(r, weights);
      ADD_FAILURE() << "no error for " << words;
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos)
          << e.what();
    }
  };
  RolloutRequest r = good;
  r.triples[0].h = session.dataset().numEntities();
  expectError(r, "out of range");
  r = good;
  r.positive = {};
  expectError(r, "positive");
  r = good;
  r.episodesPerTriple = 0;
  expectError(r, "episodes per triple");
  r = good;
  r.temperature = 0.f;
  expectError(r, "temperature");
  r = good;
  r.episodeBase = ~uint64_t{0};
  expectError(r, "episode base");
  // Greedy ignores the temperature.
  r = good;
  r.mode = SelectMode::Greedy;
  r.temperature = 0.f;
  EXPECT_NO_THROW(session.rollouts(r, weights));
  // A program whose select is greedy only refuses sampled rollouts.
  ProgramSpec greedyOnly = v10Program();
  greedyOnly.policy.sampled = false;
  Session greedySession =
      SessionAccess::make(greedyOnly, {&backend}, "cpu", kinshipSession());
  try {
    greedySession.rollouts(good, weights);
    ADD_FAILURE() << "no error for a greedy-only program";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("greedily only"), std::string::npos);
  }
}

TEST(Rollouts, NoTriplesGiveEmptyTensors) {
  HostBackend backend(HostBackendOptions{1});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const TensorMap weights = initWeights(v10Program(), session.dataset(), 1);
  const Trajectories t = session.rollouts(RolloutRequest{}, weights);
  EXPECT_EQ(t.episodes, 0);
  EXPECT_EQ(t.steps, 0);
  EXPECT_EQ(t.numStates, 0);
  EXPECT_EQ(t.stepDerived.shape, (std::vector<int64_t>{0, 120}));
  EXPECT_EQ(t.states.shape, (std::vector<int64_t>{0, 6, 3}));
}

} // namespace rollouts_test
