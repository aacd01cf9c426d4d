//===- CudaRollouts.cpp - Rollouts on the CUDA backend --------------------===//
//
// CudaBackend::rollouts() (Rollouts.h, docs/rollouts.md): the sampled
// proof loop on the device, drawing with proofc/contract/Sampling.h as the
// host backend does. Not implemented yet: a call is an error saying so.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include "proofc/runtime/Rollouts.h"
#include "support/Fail.h"

namespace proofc {

Trajectories CudaBackend::rollouts(const RolloutInputs &inputs) {
  (void)inputs;
  fail("rollouts are not implemented on cuda yet");
}

} // namespace proofc
