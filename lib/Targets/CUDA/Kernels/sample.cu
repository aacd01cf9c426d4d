//===- sample.cu - The sampled action rule, by a whole block --------------===//
//
// docs/sampling.md's rule (Gumbel-max over logits / temperature, Philox
// keyed by seed, episode, step and list index: runtime/contract's
// Sampling.h, which the host backend calls too) for ONE slot, computed by
// every thread of the slot's block at once: thread j draws the Gumbel noise
// of list entries j, j + blockDim, ... (the Philox rounds and two logs per
// entry are the work; one thread alone would take ~10 us for S = 120), and
// the block agrees on the winner through 64-bit shared-memory atomics on an
// order-preserving key of the double score (a max, then the lowest index
// among the threads holding it: ties go to the lowest index, as the host's
// strict > while scanning up). The log-probability log softmax(logits /
// temperature)[action] is computed in double, with the sum of the
// exponentials accumulated in 64-bit fixed point (each term is <= 1 after
// the max is subtracted; integer addition is associative, so the sum, and
// the log-probability, do not depend on the order the threads add in: a
// run is reproducible bit for bit on one device). Its error against the
// host's double sum is below k * 2^-56 relative, far inside spec §7.
//
// Only the sampled path pays any of this: a caller runs it under
// `temperature > 0`, a block-uniform branch, and the greedy selection (the
// policy kernel's, spec §4) is untouched.
//
// Plain CUDA C++ (no includes but the contract's), compiled by NVRTC inside
// the step templates and by the unit tests through the CPU shim
// (test/unit/Targets/CUDA/Kernels/emulation/CudaShim.h: one block at a
// time, __syncthreads() as a fiber switch).
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_SAMPLE_CU
#define PROOFC_SAMPLE_CU

#include "proofc/contract/Sampling.h"

namespace proofc_sample {

/// The shared words one selection needs (static shared memory, 32 bytes:
/// the persistent kernel's linked function has 1 KiB of it).
struct Scratch {
  unsigned long long bestKey;  // max over threads of key(score)
  unsigned long long maxKey;   // max over threads of key(logit / T)
  unsigned long long sumFixed; // sum of exp(logit / T - max) * 2^56
  int bestIndex;               // lowest index holding bestKey
  int nonFinite;               // some logit is NaN or +-inf
};

/// 2^56: the fixed-point scale of the softmax sum (k <= 2^7 terms of at
/// most 1 each stay below 2^63).
constexpr double kFixedScale = 72057594037927936.0;

/// A key whose unsigned order is the order of the doubles (NaN excluded by
/// the caller; -0.0 is taken as +0.0, as == does).
__device__ __forceinline__ unsigned long long doubleBits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned long long>(__double_as_longlong(x));
#else
  unsigned long long u;
  std::memcpy(&u, &x, 8);
  return u;
#endif
}

__device__ __forceinline__ double bitsDouble(unsigned long long u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, 8);
  return x;
#endif
}

__device__ __forceinline__ unsigned long long orderKey(double x) {
  if (x == 0.0) x = 0.0;
  const unsigned long long bits = doubleBits(x);
  return (bits >> 63) ? ~bits : bits | 0x8000000000000000ull;
}

__device__ __forceinline__ double fromOrderKey(unsigned long long key) {
  return bitsDouble((key >> 63) ? key & 0x7FFFFFFFFFFFFFFFull : ~key);
}

/// The sampled action over logits[0..k) of one slot and its
/// log-probability, for episode `episode` at step `step` (the slot's depth
/// before the step). Called by every thread of the block (block-uniform
/// arguments); thread 0 writes *action and *actionLogp, and the block
/// sees them after the call. k <= 1: action 0 with log-probability 0, no
/// draw (spec §4's single-state step). A non-finite logit makes the
/// log-probability NaN, as the greedy kernel does (docs/errors.md); its
/// action is then in range but unspecified (the run fails anyway).
__device__ __forceinline__ void
selectSampled(Scratch &s, const float *logits, int k, float temperature,
              unsigned long long seed, unsigned long long episode, int step,
              int *action, float *actionLogp) {
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  if (k <= 1) {
    if (tid == 0) {
      *action = 0;
      *actionLogp = 0.f;
    }
    __syncthreads();
    return;
  }
  if (tid == 0) {
    s.bestKey = 0;
    s.maxKey = 0;
    s.sumFixed = 0;
    s.bestIndex = 0x7FFFFFFF;
    s.nonFinite = 0;
  }
  __syncthreads();
  const double t = static_cast<double>(temperature);
  double best = 0.0, top = 0.0;
  int bestAt = -1;
  bool bad = false;
  for (int i = tid; i < k; i += threads) {
    const float l = logits[i];
    if (!(l - l == 0.f)) bad = true; // NaN or +-inf
    const double scaled = static_cast<double>(l) / t;
    const double score = proofc::sampling::perturbedScore(
        l, temperature, seed, episode, static_cast<unsigned>(step),
        static_cast<unsigned>(i));
    // Strict >, indices ascending: the thread's lowest index on a tie.
    if (bestAt < 0 || score > best) {
      if (score == score) {
        best = score;
        bestAt = i;
      }
    }
    if (i == tid || scaled > top) top = scaled;
  }
  if (bad) atomicExch(&s.nonFinite, 1);
  if (bestAt >= 0) atomicMax(&s.bestKey, orderKey(best));
  if (tid < k && top == top) atomicMax(&s.maxKey, orderKey(top));
  __syncthreads();
  if (bestAt >= 0 && orderKey(best) == s.bestKey)
    atomicMin(&s.bestIndex, bestAt);
  const double m = fromOrderKey(s.maxKey);
  unsigned long long mine = 0;
  for (int i = tid; i < k; i += threads) {
    const double e = exp(static_cast<double>(logits[i]) / t - m);
    if (e == e) mine += static_cast<unsigned long long>(e * kFixedScale);
  }
  if (mine) atomicAdd(&s.sumFixed, mine);
  __syncthreads();
  if (tid == 0) {
    int a = s.bestIndex;
    if (a < 0 || a >= k) a = 0; // only when every score is NaN
    double lp = static_cast<double>(logits[a]) / t - m -
                log(static_cast<double>(s.sumFixed) / kFixedScale);
    if (s.nonFinite) lp = bitsDouble(0x7FF8000000000000ull); // NaN
    *action = a;
    *actionLogp = static_cast<float>(lp);
  }
  __syncthreads();
}

} // namespace proofc_sample

#endif // PROOFC_SAMPLE_CU
