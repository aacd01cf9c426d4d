//===- EngineTest.cpp - derive() on hand-made knowledge bases -------------===//
//
// Each case states the spec §3 result by hand and also checks that the
// reference prover derives the same list. Names: entities a, b, c, ... have
// ids 0, 1, 2, ...; relations p, q, r, s, t have ids 0..4; variable Vk is -k.
//
//===----------------------------------------------------------------------===//
#include "runtime/host/HostTestUtil.h"

#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <random>

namespace proofc::test {
namespace {

using reference::State;

enum : int32_t { a, b, c, d, e, f, g, h };
enum : int32_t { P, Q, R, S, T };
constexpr int32_t V1 = -1, V2 = -2, V3 = -3, V4 = -4;
const std::vector<std::string> kEntities = {"a", "b", "c", "d",
                                            "e", "f", "g", "h"};
const std::vector<std::string> kRelations = {"p", "q", "r", "s", "t"};
constexpr Triple kNoCandidate{-1, -1, -1};

class EngineTest : public ::testing::Test {
protected:
  void load(const std::vector<std::vector<std::string>> &facts,
            const std::string &rules, int32_t A = 6, int32_t S = 120) {
    ds_ = makeDataset(kEntities, kRelations, facts, rules);
    kb_ = buildKnowledgeBase(ds_, false);
    shape_.A = A;
    shape_.S = S;
    ref_ = std::make_unique<reference::ReferenceProver>(ds_, nullptr, shape_);
  }

  /// Engine result, checked against the reference prover.
  std::vector<State> derived(const State &goals,
                             const Triple &candidate = kNoCandidate) {
    std::vector<State> engine = engineDerive(kb_, shape_, goals, candidate);
    EXPECT_EQ(engine, ref_->derive(goals, candidate))
        << "engine and reference prover disagree";
    return engine;
  }

  State trueState() const { return {{kb_.truePred(), 0, 0}}; }
  State falseState() const { return {{kb_.falsePred(), 0, 0}}; }

  Dataset ds_;
  KnowledgeBase kb_;
  ShapeParams shape_;
  std::unique_ptr<reference::ReferenceProver> ref_;
};

TEST_F(EngineTest, KnowledgeBaseIndexes) {
  load({{"b", "p", "c"},
        {"a", "p", "c"},
        {"a", "p", "b"},
        {"a", "p", "b"},
        {"c", "q", "a"}},
       "q(X,Y) :- p(Y,X).\np(X,Y) :- q(Y,X).\nq(X,Y) :- p(X,Z), p(Z,Y).");
  ASSERT_EQ(kb_.numFacts(), 4); // the duplicate counts once
  EXPECT_EQ(kb_.facts[0], (Atom{P, a, b}));
  EXPECT_EQ(kb_.facts[1], (Atom{P, a, c}));
  EXPECT_EQ(kb_.facts[2], (Atom{P, b, c}));
  EXPECT_EQ(kb_.facts[3], (Atom{Q, c, a}));
  const int32_t E = kb_.numEntities;
  EXPECT_EQ(kb_.psOffsets[P * E + a], 0);
  EXPECT_EQ(kb_.psOffsets[P * E + a + 1], 2);
  EXPECT_EQ(kb_.psOffsets.back(), 4);
  // (p, o = c): facts p(a,c), p(b,c), ascending in s.
  ASSERT_EQ(kb_.poOffsets[P * E + c + 1] - kb_.poOffsets[P * E + c], 2);
  EXPECT_EQ(kb_.poFacts[kb_.poOffsets[P * E + c]], 1);
  EXPECT_EQ(kb_.poFacts[kb_.poOffsets[P * E + c] + 1], 2);
  EXPECT_EQ(kb_.predOffsets, (std::vector<int32_t>{0, 3, 4, 4, 4, 4}));
  EXPECT_TRUE(kb_.hasFact(P, b, c));
  EXPECT_FALSE(kb_.hasFact(P, c, b));
  EXPECT_FALSE(kb_.hasFact(Q, a, c));
  EXPECT_EQ(kb_.findFact(Q, c, a), 3);
  // Rules by head predicate, in file order.
  EXPECT_EQ(kb_.rulePredOffsets, (std::vector<int32_t>{0, 1, 3, 3, 3, 3}));
  EXPECT_EQ(kb_.ruleIdsByPred, (std::vector<int32_t>{1, 0, 2}));
  EXPECT_EQ(kb_.ruleNumVars, (std::vector<int32_t>{2, 2, 3}));
  EXPECT_EQ(kb_.ruleBodyOffsets, (std::vector<int32_t>{0, 1, 2, 4}));
  EXPECT_EQ(kb_.ruleBody[2], (Atom{P, V1, -3}));
  EXPECT_EQ(kb_.maxRuleBody, 2);
  EXPECT_EQ(kb_.maxRuleVars, 3);
}

TEST_F(EngineTest, RepeatedVariableInGoalMatchesOnlyEqualArguments) {
  load({{"a", "p", "b"}, {"c", "p", "c"}, {"d", "p", "d"}, {"d", "p", "e"}},
       "");
  EXPECT_EQ(derived({{P, V1, V1}, {Q, V1, V2}}),
            (std::vector<State>{{{Q, c, V1}}, {{Q, d, V1}}}));
  EXPECT_EQ(derived({{P, V1, V1}}), std::vector<State>{trueState()});
  // The only reflexive facts are the candidate's own and (d, d).
  EXPECT_EQ(derived({{P, V1, V1}, {Q, V1, V1}}, {d, P, d}),
            (std::vector<State>{{{Q, c, c}}}));
}

TEST_F(EngineTest, RepeatedVariableInRuleHead) {
  load({}, "r(X,X) :- p(X,Y).");
  EXPECT_EQ(derived({{R, a, V1}}), (std::vector<State>{{{P, a, V1}}}));
  EXPECT_EQ(derived({{R, a, b}}), std::vector<State>{falseState()});
  // Unifying both head arguments merges V1 and V2 of the goal.
  EXPECT_EQ(derived({{R, V1, V2}, {Q, V2, V1}, {Q, V3, V1}}),
            (std::vector<State>{{{P, V1, V2}, {Q, V1, V1}, {Q, V3, V1}}}));
}

TEST_F(EngineTest, ConstantsInRules) {
  load({}, "q(X,a) :- p(X,b).\nq(b,Y) :- p(a,Y).");
  EXPECT_EQ(derived({{Q, V1, V2}}),
            (std::vector<State>{{{P, V1, b}}, {{P, a, V1}}}));
  EXPECT_EQ(derived({{Q, c, b}}), std::vector<State>{falseState()});
  EXPECT_EQ(derived({{Q, b, a}}),
            (std::vector<State>{{{P, b, b}}, {{P, a, a}}}));
}

TEST_F(EngineTest, RuleVariablesAreRenamedApart) {
  // The rule's X, Y, Z have the same numbers (-1, -2, -3) as the goal's V1..V3.
  load({{"a", "p", "b"}}, "p(X,Y) :- r(X,Z), s(Z,Y).");
  EXPECT_EQ(derived({{P, V1, V2}, {Q, V2, V3}}),
            (std::vector<State>{{{Q, b, V1}},
                                {{R, V1, V2}, {S, V2, V3}, {Q, V3, V4}}}));
}

TEST_F(EngineTest, StatesAreRenumberedCanonically) {
  load({{"a", "p", "c"}}, "");
  EXPECT_EQ(derived({{P, a, V1}, {Q, V2, V1}, {R, V3, V2}}),
            (std::vector<State>{{{Q, V1, c}, {R, V2, V1}}}));
}

TEST_F(EngineTest, DuplicatesAreRemovedKeepingTheFirst) {
  load({{"a", "p", "b"}, {"c", "p", "d"}},
       "p(X,Y) :- s(X,Y).\np(X,Y) :- t(X,Z).\np(U,W) :- s(U,W).\n"
       "p(X,Y) :- t(X,W).");
  // Both facts yield [q(a, V1)]; rules 3 and 4 repeat rules 1 and 2.
  EXPECT_EQ(derived({{P, V1, V2}, {Q, a, V3}}),
            (std::vector<State>{{{Q, a, V1}},
                                {{S, V1, V2}, {Q, a, V3}},
                                {{T, V1, V2}, {Q, a, V3}}}));
}

TEST_F(EngineTest, TrueShortCircuitsTheList) {
  load({{"a", "p", "b"}, {"a", "p", "c"}}, "p(X,Y) :- q(X,Y).");
  EXPECT_EQ(derived({{P, a, V1}}), std::vector<State>{trueState()});
  EXPECT_EQ(derived({{P, V1, c}}), std::vector<State>{trueState()});
  // With the only matching fact being the candidate's own, rules remain.
  EXPECT_EQ(derived({{P, a, b}}, {a, P, b}), (std::vector<State>{{{Q, a, b}}}));
  // Two goals: fact steps never resolve everything.
  EXPECT_EQ(
      derived({{P, a, V1}, {Q, V1, a}}),
      (std::vector<State>{{{Q, b, a}}, {{Q, c, a}}, {{Q, a, V1}, {Q, V1, a}}}));
}

TEST_F(EngineTest, StatesLongerThanADropped) {
  load({}, "p(X,Y) :- q(X,Z), r(Z,Y).\np(X,Y) :- s(X,Y).", /*A=*/3);
  EXPECT_EQ(derived({{P, a, V1}, {T, V1, b}}),
            (std::vector<State>{{{Q, a, V1}, {R, V1, V2}, {T, V2, b}},
                                {{S, a, V1}, {T, V1, b}}}));
  EXPECT_EQ(derived({{P, a, V1}, {T, V1, b}, {T, b, V1}}),
            (std::vector<State>{{{S, a, V1}, {T, V1, b}, {T, b, V1}}}));
  load({}, "p(X,Y) :- q(X,Z), r(Z,Y).", /*A=*/3);
  EXPECT_EQ(derived({{P, a, V1}, {T, V1, b}, {T, b, V1}}),
            std::vector<State>{falseState()});
}

TEST_F(EngineTest, TruncatedToFirstS) {
  load({{"a", "p", "e"}, {"a", "p", "c"}, {"a", "p", "b"}, {"a", "p", "d"}},
       "p(X,Y) :- s(X,Y).", /*A=*/6, /*S=*/2);
  // Fact steps in ascending o' come first.
  EXPECT_EQ(derived({{P, a, V1}, {Q, V1, a}}),
            (std::vector<State>{{{Q, b, a}}, {{Q, c, a}}}));
  load({}, "p(X,Y) :- s(X,Y).\np(X,Y) :- t(X,Y).\np(X,Y) :- q(Y,X).",
       /*A=*/6, /*S=*/2);
  EXPECT_EQ(derived({{P, a, b}}),
            (std::vector<State>{{{S, a, b}}, {{T, a, b}}}));
}

TEST_F(EngineTest, FalseWhenNothingDerives) {
  load({{"a", "p", "b"}}, "q(X,Y) :- p(Y,X).");
  EXPECT_EQ(derived({{R, a, b}}), std::vector<State>{falseState()});
  EXPECT_EQ(derived({{P, b, a}}), std::vector<State>{falseState()});
  EXPECT_EQ(derived({{P, a, b}}, {a, P, b}), std::vector<State>{falseState()});
}

TEST_F(EngineTest, CandidateNeverProvesItself) {
  load({{"a", "p", "b"}, {"a", "p", "d"}, {"e", "p", "b"}},
       "p(X,Y) :- r(X,Y).\nr(X,Y) :- p(X,Y).");
  const Triple cand{a, P, b};
  // Depth 1 and, through the rules, depth 3: p(a,b) only reaches rules.
  EXPECT_EQ(derived({{P, a, b}}, cand), (std::vector<State>{{{R, a, b}}}));
  EXPECT_EQ(derived({{R, a, b}}, cand), (std::vector<State>{{{P, a, b}}}));
  // Another candidate may use the fact.
  EXPECT_EQ(derived({{P, a, b}}, {e, P, b}), std::vector<State>{trueState()});
  // Deeper states: every index path skips the candidate's fact.
  EXPECT_EQ(derived({{P, a, V1}, {Q, V1, c}}, cand),
            (std::vector<State>{{{Q, d, c}}, {{R, a, V1}, {Q, V1, c}}}));
  EXPECT_EQ(derived({{P, V1, b}, {Q, V1, c}}, cand),
            (std::vector<State>{{{Q, e, c}}, {{R, V1, b}, {Q, V1, c}}}));
  EXPECT_EQ(derived({{P, V1, V2}, {Q, V1, V2}}, cand),
            (std::vector<State>{
                {{Q, a, d}}, {{Q, e, b}}, {{R, V1, V2}, {Q, V1, V2}}}));
  EXPECT_EQ(derived({{P, a, b}, {Q, a, a}}, cand),
            (std::vector<State>{{{R, a, b}, {Q, a, a}}}));
}

TEST_F(EngineTest, RejectsTerminalAndMismatchedCalls) {
  load({{"a", "p", "b"}}, "");
  std::vector<Atom> state(shape_.A, kPadAtom);
  DerivedSet out(kb_, shape_);
  state[0] = {kb_.truePred(), 0, 0};
  EXPECT_THROW(derive(kb_, state.data(), kNoCandidate, shape_, out), Error);
  state[0] = kPadAtom;
  EXPECT_THROW(derive(kb_, state.data(), kNoCandidate, shape_, out), Error);
  state[0] = {P, a, V1};
  ShapeParams other = shape_;
  other.S = 3;
  EXPECT_THROW(derive(kb_, state.data(), kNoCandidate, other, out), Error);
}

/// Random small KBs, rules (constants, repeated variables, 1..3 body atoms)
/// and states: the engine must always agree with the reference prover.
TEST_F(EngineTest, RandomKnowledgeBasesAgreeWithReference) {
  std::mt19937 rng(12345);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const char *vars[] = {"X", "Y", "Z", "W"};
  int compared = 0, nonTrivial = 0;
  for (int kbIndex = 0; kbIndex < 40; ++kbIndex) {
    std::vector<std::vector<std::string>> facts;
    for (int i = 0, n = 5 + pick(20); i < n; ++i)
      facts.push_back(
          {kEntities[pick(5)], kRelations[pick(3)], kEntities[pick(5)]});
    auto term = [&]() -> std::string {
      return pick(5) == 0 ? kEntities[pick(5)] : vars[pick(4)];
    };
    std::string rules;
    for (int i = 0, n = pick(8); i < n; ++i) {
      rules += kRelations[pick(3)] + "(" + term() + "," + term() + ") :- ";
      for (int j = 0, m = 1 + pick(3); j < m; ++j)
        rules += (j ? ", " : "") + kRelations[pick(3)] + "(" + term() + "," +
                 term() + ")";
      rules += ".\n";
    }
    load(facts, rules, /*A=*/2 + pick(4), /*S=*/1 + pick(8));
    for (int i = 0; i < 60; ++i) {
      State goals;
      for (int j = 0, n = 1 + pick(shape_.A); j < n; ++j) {
        auto t = [&] { return pick(2) ? -(1 + pick(4)) : pick(5); };
        goals.push_back({pick(3), t(), t()});
      }
      goals = reference::canonical(goals);
      Triple cand = kNoCandidate;
      if (pick(2) && !ds_.train.empty())
        cand = ds_.train[pick(static_cast<int>(ds_.train.size()))];
      std::vector<State> out = derived(goals, cand);
      ++compared;
      nonTrivial += out.size() > 1;
      if (HasFailure())
        return;
    }
  }
  EXPECT_EQ(compared, 2400);
  EXPECT_GT(nonTrivial, 300); // the cases exercise real lists, not only TRUE
}

} // namespace
} // namespace proofc::test
