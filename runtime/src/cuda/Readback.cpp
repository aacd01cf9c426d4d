//===- Readback.cpp - outcomes and actions from the device
//------------------===//
//
// After a run: the outcome buffers (status, depth, logp) through pinned
// staging, one synchronization for the three copies, into Outcomes; and
// the recorded actions (out.actions) of a run that records them.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"

#include <cstring>

namespace proofc {

std::vector<Outcome> CudaRunner::readOutcomes(const PlanBinding &binding) {
  const size_t n = static_cast<size_t>(binding.symbols().at("N"));
  if (n > 0) {
    // Through pinned staging (allocated once per setup): one
    // synchronization for the three copies, at the copy engine's speed.
    if (!dev_.pinnedOutcomes)
      PROOFC_CU(dev_.drv, cuMemHostAlloc,
                reinterpret_cast<void **>(&dev_.pinnedOutcomes), 3 * n * 4, 0);
    int32_t *staged = dev_.pinnedOutcomes;
    const int32_t sources[3] = {binding.outStatus(), binding.outDepth(),
                                binding.outLogp()};
    for (int k = 0; k < 3; ++k)
      PROOFC_CU(dev_.drv, cuMemcpyDtoHAsync, staged + k * n,
                dev_.buffers[static_cast<size_t>(sources[k])], n * 4,
                dev_.stream);
    PROOFC_CU(dev_.drv, cuStreamSynchronize, dev_.stream);
    // Read in place: no copy of the staging.
    static_assert(sizeof(float) == 4, "logp is one word");
    return binding.outcomes(staged, staged + n,
                            reinterpret_cast<const float *>(staged + 2 * n));
  }
  return {};
}

ActionTrace CudaRunner::readActions(const PlanBinding &binding,
                                    const std::vector<Outcome> &outcomes) {
  const size_t buffer = static_cast<size_t>(binding.outActions());
  std::vector<int32_t> words(
      static_cast<size_t>(binding.buffers()[buffer].elements));
  if (!words.empty())
    PROOFC_CU(dev_.drv, cuMemcpyDtoH, words.data(), dev_.buffers[buffer],
              words.size() * 4);
  return binding.actions(words, outcomes);
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
