//===- EngineKernelEmulationTest.cpp - engine.cu on the CPU vs derive() ---===//
//
// The exact engine kernel source, compiled as C++ through the CUDA shim
// (V10 shapes A = 6, S = 120; 32 threads per block so that chunks straddle
// the fact/rule boundary often), against the host engine on random-walk
// states of real datasets, and on states whose ground first goal searches a
// long (p, s) range of facts (planSlot's search): every derived state, in
// order, must be equal.
//
//===----------------------------------------------------------------------===//
#include "cuda/emulation/CudaShim.h"

#define PROOFC_A 6
#define PROOFC_S 120
#define PROOFC_ENGINE_THREADS 32
#include "../../../lib/Targets/CUDA/Kernels/engine.cu"

#include "TestUtil.h"
#include "cuda/emulation/EmulatedEngine.h"

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
  for (int32_t ps = 0; ps < kb.numRelations * E && states.size() < 1500;
       ++ps) {
    const int32_t lo = kb.psOffsets[ps], hi = kb.psOffsets[ps + 1];
    if (hi - lo < 9) continue;
    const int32_t p = ps / E, s = ps % E;
    // Every object of the range, and one past either end (not found).
    std::vector<int32_t> objects;
    for (int32_t f = lo; f < hi; ++f) objects.push_back(kb.facts[f].b);
    for (int32_t o : {kb.facts[lo].b - 1, kb.facts[hi - 1].b + 1})
      if (o >= 0 && o < E) objects.push_back(o);
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

INSTANTIATE_TEST_SUITE_P(Datasets, EngineKernelEmulation,
                         ::testing::Values("countries_s3", "nations",
                                           "kinship", "umls", "family"));

} // namespace
} // namespace proofc::test
