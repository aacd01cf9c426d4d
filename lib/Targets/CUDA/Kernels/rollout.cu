//===- rollout.cu - What a rollout adds to a slot's step -------------------===//
//
// The step and slot modules compiled with -DPROOFC_ROLLOUT=1 (the CUDA
// backend's rollouts, docs/rollouts-cuda.md) run rolloutStep in the slot's
// block after the policy has chosen and before the advance: the sampled
// select (sample.cu) when the call's temperature is > 0, then the step's
// recording (trajectory.cu). The call's parameters are the module's
// variable proofc_rollout_params (kernel_abi.h's RolloutParams), which the
// runtime writes before it launches the graph, so that the kernels'
// argument lists, and evaluation's modules (compiled without the macro),
// are exactly what they are without rollouts. The step memo is off in a
// rollout (MEMO = 0): a memoized step would replay the first draw.
//
// Plain CUDA C++: include engine.cu first. Compiled by NVRTC and by the
// unit tests through the CPU shim.
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_ROLLOUT_CU
#define PROOFC_ROLLOUT_CU

#ifndef PROOFC_ENGINE_CU
#error "rollout.cu: include engine.cu first"
#endif

#include "sample.cu"
#include "trajectory.cu"

extern "C" {
__device__ proofc_abi::RolloutParams proofc_rollout_params;
}

namespace proofc_rollout {

__device__ __forceinline__ proofc_traj::Recorder
recorder(const proofc_abi::RolloutParams &p) {
  return {reinterpret_cast<int *>(p.table),
          p.entries,
          reinterpret_cast<int *>(p.overflow),
          p.D,
          reinterpret_cast<int *>(p.stepState),
          reinterpret_cast<int *>(p.stepDerived),
          reinterpret_cast<int *>(p.stepCount),
          reinterpret_cast<int *>(p.stepAction),
          reinterpret_cast<float *>(p.stepLogp)};
}

/// Slot b's rollout step, by every thread of its block (block-uniform
/// arguments): `logits` its k logits, `parent` and `derived` the state and
/// the list they score, action[b] / actionLogp[b] the greedy kernel's
/// choice, replaced by the draw when sampling. Nothing for an inactive
/// slot.
__device__ __forceinline__ void rolloutStep(int b, const int *slotCand,
                                            const int *depth, const int *count,
                                            const float *logits,
                                            const int *parent,
                                            const int *derived, int *action,
                                            float *actionLogp) {
  __shared__ proofc_sample::Scratch sSample;
  const proofc_abi::RolloutParams &p = proofc_rollout_params;
  const int c = slotCand[b];
  if (c < 0) return;
  const int q = reinterpret_cast<const int *>(p.episodeOf)[c];
  const int t = depth[b];
  const int k = count[b];
  if (p.temperature > 0.f)
    proofc_sample::selectSampled(sSample, logits, k, p.temperature, p.seed,
                                 p.episodeBase + static_cast<unsigned long long>(q), t,
                                 action + b, actionLogp + b);
  proofc_traj::recordStep(recorder(p), parent, derived, k, action[b],
                          actionLogp[b], q, t);
}

} // namespace proofc_rollout

#endif // PROOFC_ROLLOUT_CU
