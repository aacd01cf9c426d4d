//===- GpuEngineTest.cpp - engine.cu on the GPU vs the host engine --------===//
//
// The engine kernel compiled by NVRTC (V10 shapes, 128 threads per block)
// derives every slot of launches of 256 random-walk states of real datasets;
// each derived list must equal the host engine's derive() exactly, state by
// state and in order. Skipped without a CUDA driver.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include <gtest/gtest.h>

#if PROOFC_HAVE_CUDA

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "TestUtil.h"
#include "runtime/cuda/GpuTestUtil.h"
#include "support/FileIO.h"

#include <cstring>
#include <filesystem>

namespace proofc::test {
namespace {

class GpuEngine : public ::testing::TestWithParam<const char *> {};

TEST_P(GpuEngine, DerivesExactlyLikeTheHostEngine) {
  PROOFC_REQUIRE_GPU();
  if (!std::filesystem::exists(dataDir(GetParam())))
    GTEST_SKIP() << "dataset " << GetParam() << " not present";
  GpuContext gpu;
  CudaDriver &drv = gpu.drv;
  Dataset ds = loadDataset(dataDir(GetParam()));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape; // A = 6, S = 120, D = 20
  const size_t B = 256, W = 3 * shape.A;
  SampledStates sampled = sampleStates(ds, kb, shape, 4 * B, 1234);

  const std::string cubin = Nvrtc::get().compileToCubin(
      kernelTemplate("engine.cu"), "engine.cu",
      {"-DPROOFC_A=6", "-DPROOFC_S=120"}, gpu.major, gpu.minor);
  CUfunction engine = gpu.function(gpu.load(cubin), "proofc_engine");

  std::vector<int32_t> pool(3 * sampled.size());
  std::memcpy(pool.data(), sampled.candidates.data(), pool.size() * 4);
  const int32_t one = 1;
  CUdeviceptr dFlag = gpu.upload(std::vector<int32_t>{one});
  CUdeviceptr dPool = gpu.upload(pool);
  CUdeviceptr dFacts = gpu.upload(kb.facts), dPs = gpu.upload(kb.psOffsets),
              dPoFacts = gpu.upload(kb.poFacts), dPo = gpu.upload(kb.poOffsets),
              dPred = gpu.upload(kb.predOffsets),
              dHeads = gpu.upload(kb.ruleHeads),
              dBodyOff = gpu.upload(kb.ruleBodyOffsets),
              dBody = gpu.upload(kb.ruleBody),
              dNumVars = gpu.upload(kb.ruleNumVars),
              dRulePred = gpu.upload(kb.rulePredOffsets),
              dRuleIds = gpu.upload(kb.ruleIdsByPred);
  CUdeviceptr dState = gpu.alloc(B * W * 4), dSlot = gpu.alloc(B * 4);
  CUdeviceptr dDerived = gpu.alloc(B * shape.S * W * 4),
              dCount = gpu.alloc(B * 4);
  int E = kb.numEntities, R = kb.numRelations;

  // The last launch leaves a few slots inactive (count must be 0).
  for (size_t first = 0; first < sampled.size(); first += B - 5) {
    const size_t n = std::min(B - 5, sampled.size() - first);
    std::vector<int32_t> state(B * W, 0), slot(B, -1);
    std::memcpy(state.data(), sampled.states.data() + first * shape.A,
                n * W * 4);
    for (size_t b = 0; b < n; ++b)
      slot[b] = static_cast<int32_t>(first + b);
    PROOFC_CU(drv, cuMemcpyHtoD, dState, state.data(), state.size() * 4);
    PROOFC_CU(drv, cuMemcpyHtoD, dSlot, slot.data(), slot.size() * 4);
    void *args[] = {&dFlag,    &dState,   &dSlot,    &dPool,     &dFacts,
                    &dPs,      &dPoFacts, &dPo,      &dPred,     &dHeads,
                    &dBodyOff, &dBody,    &dNumVars, &dRulePred, &dRuleIds,
                    &E,        &R,        &dDerived, &dCount};
    PROOFC_CU(drv, cuLaunchKernel, engine, static_cast<unsigned>(B), 1, 1, 128,
              1, 1, 0, nullptr, args, nullptr);
    PROOFC_CU(drv, cuCtxSynchronize);
    expectSameDerived(kb, shape, sampled, first, n,
                      gpu.download<int32_t>(dDerived, B * shape.S * W),
                      gpu.download<int32_t>(dCount, B), GetParam());
    if (HasFatalFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(Datasets, GpuEngine,
                         ::testing::Values("countries_s3", "nations", "kinship",
                                           "umls", "family", "wn18rr",
                                           "fb15k-237"));

} // namespace
} // namespace proofc::test

#endif // PROOFC_HAVE_CUDA
