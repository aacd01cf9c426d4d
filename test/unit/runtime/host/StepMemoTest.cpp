//===- StepMemoTest.cpp - The host backend's step memo --------------------===//
//
// StepMemo on its own: a step is keyed by the state alone unless the
// candidate's triple unifies with the first goal (kernel_abi.h's
// memoStepIsRelevant), a kept step comes back whole, the first of two
// writers wins, a full memo keeps nothing more but still answers, every
// entry survives the index's growth, and threads that insert and look up
// the same steps at once each find what was kept. The host backend's
// outcomes and actions with the memo on, off and full are compared in
// EndToEndTest (StepMemoChangesNoOutcomeOrAction) and the relevant steps
// of TestUtil.h's RelevantSteps in RelevantStepsAreTheCandidatesOwn.
//
//===----------------------------------------------------------------------===//
#include "host/StepMemo.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

namespace proofc::test {
namespace {

constexpr int32_t kA = 3;

/// A canonical state of kA atoms: p(a, b), then q(V1, c) when `two`, then
/// padding.
std::vector<Atom> state(int32_t p, int32_t a, int32_t b, bool two = false) {
  std::vector<Atom> s(kA, Atom{kPadPred, 0, 0});
  s[0] = {p, a, b};
  if (two)
    s[1] = {7, -1, 3};
  return s;
}

/// A distinct state for each n (its first atom's constants).
std::vector<Atom> numbered(int32_t n) { return state(1, n, n + 1, true); }

TEST(StepMemo, KeyNamesTheCandidateOnlyWhenItUnifiesWithTheFirstGoal) {
  StepMemo memo(kA, 16);
  const Triple c{4, 2, 5}; // (h, r, t)
  auto rel = [&](const std::vector<Atom> &s, const Triple &cand) {
    const StepMemo::Key k = memo.key(s.data(), cand);
    return std::pair{k.relH(), k.relT()};
  };
  const std::pair none{-1, -1}, own{4, 5};
  EXPECT_EQ(rel(state(2, 4, 5), c), own);   // the candidate's own triple
  EXPECT_EQ(rel(state(2, -1, 5), c), own);  // r(V1, t)
  EXPECT_EQ(rel(state(2, 4, -1), c), own);  // r(h, V1)
  EXPECT_EQ(rel(state(2, -1, -2), c), own); // r(V1, V2)
  EXPECT_EQ(rel(state(3, 4, 5), c), none);  // another predicate
  EXPECT_EQ(rel(state(2, 9, 5), c), none);  // another head
  EXPECT_EQ(rel(state(2, 4, 9), c), none);  // another tail
  // r(V1, V1) unifies with the candidate only when h = t.
  EXPECT_EQ(rel(state(2, -1, -1), c), none);
  EXPECT_EQ(rel(state(2, -1, -1), (Triple{6, 2, 6})), (std::pair{6, 6}));
  // The key of an unrelated step is the same for every candidate.
  EXPECT_EQ(memo.key(state(3, 4, 5).data(), c).hash,
            memo.key(state(3, 4, 5).data(), (Triple{0, 1, 8})).hash);
  EXPECT_NE(memo.key(state(2, 4, 5).data(), c).hash,
            memo.key(state(2, 4, 5).data(), (Triple{4, 2, 6})).hash);
}

TEST(StepMemo, AKeptStepComesBackWholeAndTheFirstWriterWins) {
  StepMemo memo(kA, 16);
  const std::vector<Atom> g = state(2, 4, -1, true), chosen = state(5, 1, 1);
  const Triple c{4, 2, 5}, other{4, 2, 6};
  const StepMemo::Key key = memo.key(g.data(), c);
  std::vector<Atom> out(kA);
  double logp = 1.0;
  int32_t action = -7;
  EXPECT_FALSE(memo.find(key, out.data(), &logp, &action));
  memo.insert(key, chosen.data(), -0.25, 3);
  ASSERT_TRUE(memo.find(key, out.data(), &logp, &action));
  EXPECT_EQ(out, chosen);
  EXPECT_EQ(logp, -0.25);
  EXPECT_EQ(action, 3);
  // A second writer of the same step changes nothing.
  memo.insert(key, state(6, 0, 0).data(), -9.0, 1);
  ASSERT_TRUE(memo.find(key, out.data(), &logp, &action));
  EXPECT_EQ(out, chosen);
  EXPECT_EQ(action, 3);
  EXPECT_EQ(memo.size(), 1);
  // The same state, relevant to another candidate: another step.
  const StepMemo::Key otherKey = memo.key(g.data(), other);
  EXPECT_FALSE(memo.find(otherKey, out.data(), &logp, &action));
  // A NaN log-probability is kept as it is.
  memo.insert(otherKey, chosen.data(), std::nan(""), 0);
  ASSERT_TRUE(memo.find(otherKey, out.data(), &logp, &action));
  EXPECT_TRUE(std::isnan(logp));
}

TEST(StepMemo, AFullMemoKeepsNothingMoreAndStillAnswers) {
  StepMemo memo(kA, 3);
  const Triple c{100, 9, 100};
  const std::vector<Atom> chosen = state(5, 1, 1);
  for (int32_t n = 0; n < 5; ++n) {
    const std::vector<Atom> g = numbered(n);
    memo.insert(memo.key(g.data(), c), chosen.data(), -n, n);
  }
  EXPECT_EQ(memo.size(), 3);
  std::vector<Atom> out(kA);
  double logp = 0;
  int32_t action = 0;
  for (int32_t n = 0; n < 5; ++n) {
    const std::vector<Atom> g = numbered(n);
    EXPECT_EQ(memo.find(memo.key(g.data(), c), out.data(), &logp, &action),
              n < 3)
        << "state " << n;
  }
}

TEST(StepMemo, EveryEntrySurvivesTheIndexGrowing) {
  constexpr int32_t kSteps = 20000; // ~300 a shard: several doublings
  StepMemo memo(kA, 1 << 20);
  const Triple c{100000, 9, 100000};
  for (int32_t n = 0; n < kSteps; ++n) {
    const std::vector<Atom> g = numbered(n);
    memo.insert(memo.key(g.data(), c), state(5, n, 0).data(), -0.5 * n,
                n % 120);
  }
  ASSERT_EQ(memo.size(), kSteps);
  std::vector<Atom> out(kA);
  double logp = 0;
  int32_t action = 0;
  for (int32_t n = 0; n < kSteps; ++n) {
    const std::vector<Atom> g = numbered(n);
    ASSERT_TRUE(memo.find(memo.key(g.data(), c), out.data(), &logp, &action))
        << "state " << n;
    ASSERT_EQ(out, state(5, n, 0)) << "state " << n;
    ASSERT_EQ(logp, -0.5 * n);
    ASSERT_EQ(action, n % 120);
  }
}

TEST(StepMemo, ThreadsKeepAndFindTheSameStepsAtOnce) {
  constexpr int kThreads = 4;
  constexpr int32_t kSteps = 5000;
  StepMemo memo(kA, 1 << 16);
  const Triple c{100000, 9, 100000};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<Atom> out(kA);
      double logp = 0;
      int32_t action = 0;
      // Each thread walks the same steps from another start.
      for (int32_t i = 0; i < kSteps; ++i) {
        const int32_t n = (i + t * kSteps / kThreads) % kSteps;
        const std::vector<Atom> g = numbered(n);
        const StepMemo::Key key = memo.key(g.data(), c);
        if (memo.find(key, out.data(), &logp, &action)) {
          if (out != state(5, n, 0) || logp != -0.5 * n || action != n % 120)
            wrong.fetch_add(1);
        } else {
          memo.insert(key, state(5, n, 0).data(), -0.5 * n, n % 120);
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(memo.size(), kSteps);
}

TEST(StepMemo, SizesAreRefused) {
  EXPECT_ANY_THROW(StepMemo(0, 16));
  EXPECT_ANY_THROW(StepMemo(kA, 0));
}

} // namespace
} // namespace proofc::test
