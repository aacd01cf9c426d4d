//===- EngineKernelEmulationTest.cpp - engine.cu on the CPU vs derive() ---===//
//
// The exact engine kernel source, compiled as C++ through the CUDA shim
// (V10 shapes A = 6, S = 120; 32 threads per block so that chunks straddle
// the fact/rule boundary often), against the host engine on random-walk
// states of real datasets: every derived state, in order, must be equal.
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

INSTANTIATE_TEST_SUITE_P(Datasets, EngineKernelEmulation,
                         ::testing::Values("countries_s3", "nations",
                                           "kinship", "umls", "family"));

} // namespace
} // namespace proofc::test
