//===- EmulatedEngine.h - Run an emulated proofc_engine on states -*- C++
//-*-===//
//
// Test-only glue: lays sampled states out as the engine kernel's slots
// (docs/gpu-kernels.md), runs an emulated instantiation of engine.cu over
// them in launches of B slots (the last slots of a launch inactive when the
// states run out) and checks every slot against the host engine.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_EMULATION_EMULATEDENGINE_H
#define PROOFC_TEST_UNIT_CUDA_EMULATION_EMULATEDENGINE_H

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#include <algorithm>
#include <cstring>

namespace proofc::test {

using EngineKernel = void (*)(const int *, const int *, const int *,
                              const int *, const int *, const int *,
                              const int *, const int *, const int *,
                              const int *, const int *, const int *,
                              const int *, const int *, const int *, int, int,
                              int *, int *);

inline const int *ints(const std::vector<Atom> &v) {
  return reinterpret_cast<const int *>(v.data());
}

/// Runs `kernel` (compiled for shape.A, shape.S, `threads` per block) over
/// every sampled state, B slots per launch, and compares with derive().
inline void checkEmulatedEngine(EngineKernel kernel, unsigned threads,
                                const KnowledgeBase &kb,
                                const ShapeParams &shape,
                                const SampledStates &sampled, size_t B,
                                const std::string &what) {
  const size_t W = 3 * static_cast<size_t>(shape.A);
  std::vector<int> pool(3 * sampled.size());
  std::memcpy(pool.data(), sampled.candidates.data(),
              pool.size() * sizeof(int));
  const int flag = 1;
  for (size_t first = 0; first < sampled.size(); first += B) {
    const size_t n = std::min(B, sampled.size() - first);
    std::vector<int> state(B * W, 0), slotCand(B, -1);
    std::memcpy(state.data(), sampled.states.data() + first * shape.A,
                n * W * sizeof(int));
    for (size_t b = 0; b < n; ++b)
      slotCand[b] = static_cast<int>(first + b);
    std::vector<int> derived(B * shape.S * W, -7), count(B, -7);
    emu::launch(static_cast<unsigned>(B), threads, [&] {
      kernel(&flag, state.data(), slotCand.data(), pool.data(), ints(kb.facts),
             kb.psOffsets.data(), kb.poFacts.data(), kb.poOffsets.data(),
             kb.predOffsets.data(), ints(kb.ruleHeads),
             kb.ruleBodyOffsets.data(), ints(kb.ruleBody),
             kb.ruleNumVars.data(), kb.rulePredOffsets.data(),
             kb.ruleIdsByPred.data(), kb.numEntities, kb.numRelations,
             derived.data(), count.data());
    });
    expectSameDerived(kb, shape, sampled, first, n, derived, count, what);
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_EMULATION_EMULATEDENGINE_H
