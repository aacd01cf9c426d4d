//===- Sampling.h - The sampled action rule, defined once -------*- C++ -*-===//
//
// docs/sampling.md's rule, the one place it is written in code: the host
// backend (runtime/src/host), the CUDA kernels (NVRTC compiles this file,
// inlined at their `#include`, as it does kernel_abi.h) and the tests all
// call these functions, so that both backends draw the same action from the
// same logits. The rule: for episode `episode`, step t, derived-list entry i
// and the call's `seed`,
//   x   = Philox4x32-10(key = (lo32(seed), hi32(seed)),
//                       counter = (lo32(episode), hi32(episode), t, i))[0]
//   u   = ((x >> 8) + 0.5) * 2^-24                 in (0, 1), exact in double
//   g_i = -log(-log(u))                            in double
//   action = argmax_i (double(logit_i) / double(temperature) + g_i),
//            ties to the lowest index (strict > while scanning up).
// Double, not float: host libm and CUDA's log are each within an ulp or two
// of the exact value in double, so the perturbed scores of the two backends
// agree to about 1e-16 relative and the argmax differs only when two scores
// are that close (or when the logits themselves differ, spec §7). In float
// the same ulps would be 1e-7 relative, and ties at that resolution are
// frequent among the 2^24 possible u.
//
// Plain C++ with no includes under NVRTC (the device's ::log); host code
// takes <cmath>. Functions are inline and, under CUDA, __host__ __device__.
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_CONTRACT_SAMPLING_H
#define PROOFC_CONTRACT_SAMPLING_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define PROOFC_SAMPLING_FN __host__ __device__ inline
#define PROOFC_SAMPLING_LOG(x) ::log(x)
#else
#include <cmath>
#define PROOFC_SAMPLING_FN inline
#define PROOFC_SAMPLING_LOG(x) std::log(x)
#endif

namespace proofc {
namespace sampling {

// Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32_10): the
// multipliers and Weyl key increments of the reference implementation.
// unsigned int is 32 bits on every target proofc builds for (host x86-64
// and aarch64, NVPTX); the tests check it.
constexpr unsigned int kPhiloxM0 = 0xD2511F53u;
constexpr unsigned int kPhiloxM1 = 0xCD9E8D57u;
constexpr unsigned int kPhiloxW0 = 0x9E3779B9u;
constexpr unsigned int kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

/// Four 32-bit words (Philox's counter and output).
struct Philox4x32 {
  unsigned int w[4];
};

/// One Philox round on `c` with key (k0, k1).
PROOFC_SAMPLING_FN void philoxRound(unsigned int c[4], unsigned int k0,
                                    unsigned int k1) {
  const unsigned long long p0 =
      static_cast<unsigned long long>(kPhiloxM0) * c[0];
  const unsigned long long p1 =
      static_cast<unsigned long long>(kPhiloxM1) * c[2];
  const unsigned int hi0 = static_cast<unsigned int>(p0 >> 32);
  const unsigned int lo0 = static_cast<unsigned int>(p0);
  const unsigned int hi1 = static_cast<unsigned int>(p1 >> 32);
  const unsigned int lo1 = static_cast<unsigned int>(p1);
  const unsigned int c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k0;
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k1;
  c[3] = lo0;
}

/// Philox4x32-10 of counter (c0, c1, c2, c3) under key (k0, k1): Random123's
/// philox4x32(ctr, key) with R = 10 (its known-answer vectors are the
/// test's, test/unit/runtime/contract/SamplingTest.cpp).
PROOFC_SAMPLING_FN Philox4x32 philox4x32_10(unsigned int c0, unsigned int c1,
                                            unsigned int c2, unsigned int c3,
                                            unsigned int k0, unsigned int k1) {
  Philox4x32 out = {{c0, c1, c2, c3}};
  for (int r = 0; r < kPhiloxRounds; ++r) {
    if (r > 0) {
      k0 += kPhiloxW0;
      k1 += kPhiloxW1;
    }
    philoxRound(out.w, k0, k1);
  }
  return out;
}

/// The 32-bit draw x of (seed, episode, step, index): the first output word
/// of Philox4x32-10 with key (lo32(seed), hi32(seed)) and counter
/// (lo32(episode), hi32(episode), step, index).
PROOFC_SAMPLING_FN unsigned int drawBits(unsigned long long seed,
                                         unsigned long long episode,
                                         unsigned int step,
                                         unsigned int index) {
  return philox4x32_10(static_cast<unsigned int>(episode),
                       static_cast<unsigned int>(episode >> 32), step, index,
                       static_cast<unsigned int>(seed),
                       static_cast<unsigned int>(seed >> 32))
      .w[0];
}

/// u = ((x >> 8) + 0.5) * 2^-24: the centre of one of 2^24 equal cells of
/// (0, 1), never 0 or 1; exact in double (and in float).
PROOFC_SAMPLING_FN double uniformOpen01(unsigned int bits) {
  return (static_cast<double>(bits >> 8) + 0.5) * (1.0 / 16777216.0);
}

/// The standard Gumbel draw -log(-log(u)) of `bits`, in double.
PROOFC_SAMPLING_FN double gumbel(unsigned int bits) {
  return -PROOFC_SAMPLING_LOG(-PROOFC_SAMPLING_LOG(uniformOpen01(bits)));
}

/// The perturbed score of entry `index` of a derived list:
/// double(logit) / double(temperature) + g(seed, episode, step, index).
PROOFC_SAMPLING_FN double perturbedScore(float logit, float temperature,
                                         unsigned long long seed,
                                         unsigned long long episode,
                                         unsigned int step,
                                         unsigned int index) {
  return static_cast<double>(logit) / static_cast<double>(temperature) +
         gumbel(drawBits(seed, episode, step, index));
}

/// The sampled action over logits[0..count): argmax of perturbedScore, ties
/// to the lowest index; 0 when count <= 1 (no draw is needed: spec §4's
/// single-state step). A NaN score never wins (the caller checks the logits
/// are finite first: docs/sampling.md).
PROOFC_SAMPLING_FN int sampleAction(const float *logits, int count,
                                    float temperature, unsigned long long seed,
                                    unsigned long long episode,
                                    unsigned int step) {
  if (count <= 1)
    return 0;
  int best = 0;
  double bestScore =
      perturbedScore(logits[0], temperature, seed, episode, step, 0u);
  for (int i = 1; i < count; ++i) {
    const double score = perturbedScore(logits[i], temperature, seed, episode,
                                        step, static_cast<unsigned int>(i));
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

} // namespace sampling
} // namespace proofc

#undef PROOFC_SAMPLING_FN
#undef PROOFC_SAMPLING_LOG

#endif // PROOFC_CONTRACT_SAMPLING_H
