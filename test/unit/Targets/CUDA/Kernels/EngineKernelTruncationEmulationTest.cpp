//===- EngineKernelTruncationEmulationTest.cpp - small A and S ------------===//
//
// engine.cu with A = 3 and S = 4 (renamed so it links beside the V10
// instantiation): truncation to S, dropping yields longer than A, and the
// chunk loop with 8 threads per block, against the host engine.
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#define PROOFC_A 3
#define PROOFC_S 4
#define PROOFC_ENGINE_THREADS 8
#define proofc_engine proofc_engine_a3s4
#define proofc_engine_impl proofc_engine_impl_a3s4
#include "Kernels/engine.cu"
#undef proofc_engine
#undef proofc_engine_impl

#include "Targets/CUDA/Kernels/emulation/EmulatedEngine.h"
#include "TestUtil.h"

namespace proofc::test {
namespace {

TEST(EngineKernelEmulation, SmallShapesTruncateLikeHostDerive) {
  for (const char *name : {"countries_s3", "kinship", "umls"}) {
    Dataset ds = loadDataset(dataDir(name));
    KnowledgeBase kb = buildKnowledgeBase(ds, false);
    ShapeParams shape;
    shape.A = 3;
    shape.S = 4;
    shape.D = 8;
    SampledStates sampled = sampleStates(ds, kb, shape, 200, 7);
    checkEmulatedEngine(proofc_engine_a3s4, PROOFC_ENGINE_THREADS, kb, shape,
                        sampled, 16, name);
  }
}

} // namespace
} // namespace proofc::test
