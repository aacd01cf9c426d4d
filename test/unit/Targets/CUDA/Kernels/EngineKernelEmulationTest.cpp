//===- EngineKernelEmulationTest.cpp - engine.cu on the CPU vs derive() ---===//
//
// The exact engine kernel source, compiled as C++ through the CUDA shim
// (V10 shapes A = 6, S = 120; 32 threads per block so that chunks straddle
// the fact/rule boundary often), against the host engine on random-walk
// states of real datasets, and on states whose ground first goal searches a
// long (p, s) range of facts (planSlot's search), and on random rules and
// goals of small knowledge bases: every derived state, in order, must be
// equal.
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#define PROOFC_A 6
#define PROOFC_S 120
#define PROOFC_ENGINE_THREADS 32
#include "Kernels/engine.cu"

#include "Targets/CUDA/Kernels/emulation/EmulatedEngine.h"
#include "TestUtil.h"
#include "runtime/host/HostTestUtil.h"

#include <random>

namespace proofc::test {
namespace {

class EngineKernelEmulation : public ::testing::TestWithParam<const char *> {};

TEST_P(EngineKernelEmulation, MatchesHostDeriveOnRandomStates) {
  Dataset ds = loadDataset(dataDir(GetParam()));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape; // V10: A = 6, S = 120, D = 20
  SampledStates sampled = sampleStates(ds, kb, shape, 300, 42);
  checkEmulatedEngine(proofc_engine, PROOFC_ENGINE_THREADS, kb, shape, sampled,
                      37, GetParam());
}

// A ground first goal (p, s, o) finds its fact by halving the (p, s) range,
// then reading the last few facts at once: every object of each range of
// at least 9 facts (found) and one past either end (not found).
TEST_P(EngineKernelEmulation, MatchesHostDeriveOnGroundGoalsOfLongRanges) {
  Dataset ds = loadDataset(dataDir(GetParam()));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape;
  SampledStates states;
  const int32_t E = kb.numEntities;
  for (int32_t ps = 0; ps < kb.numRelations * E && states.size() < 1500; ++ps) {
    const int32_t lo = kb.psOffsets[ps], hi = kb.psOffsets[ps + 1];
    if (hi - lo < 9)
      continue;
    const int32_t p = ps / E, s = ps % E;
    // Every object of the range, and one past either end (not found).
    std::vector<int32_t> objects;
    for (int32_t f = lo; f < hi; ++f)
      objects.push_back(kb.facts[f].b);
    for (int32_t o : {kb.facts[lo].b - 1, kb.facts[hi - 1].b + 1})
      if (o >= 0 && o < E)
        objects.push_back(o);
    for (int32_t o : objects) {
      // [(p, s, o), (p, o, V1)]: a fact step keeps the second goal.
      std::vector<Atom> st(shape.A, kPadAtom);
      st[0] = {p, s, o};
      st[1] = {p, o, -1};
      states.states.insert(states.states.end(), st.begin(), st.end());
      states.candidates.push_back({o, p, s});
    }
  }
  if (states.size() == 0)
    GTEST_SKIP() << GetParam() << " has no (p, s) range of 9 facts or more";
  checkEmulatedEngine(proofc_engine, PROOFC_ENGINE_THREADS, kb, shape, states,
                      37, GetParam());
}

// Every rule head of the datasets is (X, Y). Here heads have constants or a
// repeated variable, goals repeated variables or constants: a head (X, X)
// against a goal (V1, V2) binds X to V1, then V1 to V2 (a chain of two), a
// goal (V1, V1) against a head (a, Y) binds V1 to a, then Y to a.
TEST(EngineKernelEmulation, MatchesHostDeriveOnRandomRulesAndGoals) {
  std::mt19937 rng(2718);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const std::vector<std::string> entities = {"a", "b", "c", "d", "e"};
  const std::vector<std::string> relations = {"p", "q", "r"};
  const char *vars[] = {"X", "Y", "Z", "W"};
  ShapeParams shape; // V10: A = 6, S = 120
  for (int kbIndex = 0; kbIndex < 40; ++kbIndex) {
    std::vector<std::vector<std::string>> facts;
    for (int i = 0, n = 5 + pick(20); i < n; ++i)
      facts.push_back(
          {entities[pick(5)], relations[pick(3)], entities[pick(5)]});
    auto term = [&]() -> std::string {
      return pick(4) == 0 ? entities[pick(5)] : vars[pick(4)];
    };
    std::string rules;
    for (int i = 0, n = 1 + pick(8); i < n; ++i) {
      rules += relations[pick(3)] + "(" + term() + "," + term() + ") :- ";
      for (int j = 0, m = 1 + pick(4); j < m; ++j)
        rules += (j ? ", " : "") + relations[pick(3)] + "(" + term() + "," +
                 term() + ")";
      rules += ".\n";
    }
    Dataset ds = makeDataset(entities, relations, facts, rules);
    KnowledgeBase kb = buildKnowledgeBase(ds, false);
    SampledStates states;
    for (int i = 0; i < 50; ++i) {
      reference::State goals;
      for (int j = 0, n = 1 + pick(shape.A); j < n; ++j) {
        auto t = [&] { return pick(2) ? -(1 + pick(3)) : pick(5); };
        goals.push_back({pick(3), t(), t()});
      }
      goals = reference::canonical(goals);
      goals.resize(shape.A, kPadAtom);
      states.states.insert(states.states.end(), goals.begin(), goals.end());
      states.candidates.push_back(
          pick(2) ? ds.train[pick(static_cast<int>(ds.train.size()))]
                  : Triple{-1, -1, -1});
    }
    checkEmulatedEngine(proofc_engine, PROOFC_ENGINE_THREADS, kb, shape, states,
                        37, "random rules " + std::to_string(kbIndex));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(Datasets, EngineKernelEmulation,
                         ::testing::Values("countries_s3", "nations", "kinship",
                                           "umls", "family"));

} // namespace
} // namespace proofc::test
