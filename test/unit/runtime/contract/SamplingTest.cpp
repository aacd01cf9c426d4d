//===- SamplingTest.cpp - The sampled action rule (docs/sampling.md) ------===//
//
// proofc/contract/Sampling.h against Philox4x32-10's published known-answer
// vectors (Random123, tests/kat_vectors, "philox4x32 10"), the draw's
// layout (key from the seed, counter from episode, step and index), the
// uniform's range, the Gumbel-max rule's ties and single-state steps, and
// that the drawn actions follow softmax(logits / temperature); and the
// host's sampleAction (HostPolicy.h): the same index, its log-probability.
//
//===----------------------------------------------------------------------===//
#include "proofc/contract/Sampling.h"
#include "host/HostPolicy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace proofc;
using namespace proofc::sampling;

namespace {

static_assert(sizeof(unsigned int) == 4, "Sampling.h assumes 32-bit words");

struct Kat {
  unsigned int counter[4], key[2], out[4];
};

TEST(Sampling, PhiloxMatchesRandom123KnownAnswers) {
  const Kat kats[] = {
      {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
       {0x00000000u, 0x00000000u},
       {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xa4093822u, 0x299f31d0u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (const Kat &k : kats) {
    const Philox4x32 out =
        philox4x32_10(k.counter[0], k.counter[1], k.counter[2], k.counter[3],
                      k.key[0], k.key[1]);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out.w[i], k.out[i])
          << "word " << i << " of counter " << std::hex << k.counter[0];
  }
}

TEST(Sampling, DrawIsTheFirstWordUnderSeedAndEpisodeCounter) {
  const unsigned long long seed = 0x299f31d0a4093822ull;
  const unsigned long long episode = 0x85a308d3243f6a88ull;
  // The third known answer, read as (seed, episode, step, index).
  EXPECT_EQ(drawBits(seed, episode, 0x13198a2eu, 0x03707344u), 0xd16cfe09u);
  EXPECT_EQ(drawBits(0, 0, 0, 0), 0x6627e8d5u);
  // Each input moves the draw.
  const unsigned int base = drawBits(7, 9, 3, 2);
  EXPECT_NE(base, drawBits(8, 9, 3, 2));
  EXPECT_NE(base, drawBits(7, 10, 3, 2));
  EXPECT_NE(base, drawBits(7, 9 + (1ull << 32), 3, 2));
  EXPECT_NE(base, drawBits(7, 9, 4, 2));
  EXPECT_NE(base, drawBits(7, 9, 3, 3));
  EXPECT_NE(base, drawBits(7 + (1ull << 32), 9, 3, 2));
}

TEST(Sampling, UniformIsInsideTheOpenIntervalAndGumbelFinite) {
  EXPECT_EQ(uniformOpen01(0u), 0.5 / 16777216.0);
  EXPECT_EQ(uniformOpen01(0xffffffffu), 1.0 - 0.5 / 16777216.0);
  EXPECT_EQ(uniformOpen01(0x80000000u), 0.5 + 0.5 / 16777216.0);
  for (unsigned int bits : {0u, 0xffu, 0x100u, 0x80000000u, 0xffffffffu}) {
    const double u = uniformOpen01(bits);
    EXPECT_GT(u, 0.0);
    EXPECT_LT(u, 1.0);
    EXPECT_TRUE(std::isfinite(gumbel(bits)));
    EXPECT_DOUBLE_EQ(gumbel(bits), -std::log(-std::log(u)));
  }
}

TEST(Sampling, SingleStateNeedsNoDrawAndTheDrawsDecideEqualLogits) {
  const float one[] = {5.f};
  EXPECT_EQ(sampling::sampleAction(one, 1, 1.f, 1, 2, 3), 0);
  // Equal logits: the argmax of the draws alone.
  const float equal[] = {0.f, 0.f, 0.f, 0.f};
  const int a = sampling::sampleAction(equal, 4, 1.f, 1, 2, 3);
  double best = -1e300;
  int expect = -1;
  for (int i = 0; i < 4; ++i) {
    const double g = gumbel(drawBits(1, 2, 3, i));
    if (g > best) {
      best = g;
      expect = i;
    }
  }
  EXPECT_EQ(a, expect);
  // A huge logit wins whatever is drawn.
  const float sure[] = {0.f, 0.f, 1000.f, 0.f};
  for (unsigned long long e = 0; e < 100; ++e)
    EXPECT_EQ(sampling::sampleAction(sure, 4, 1.f, 0, e, 0), 2);
}

/// Empirical action frequencies of `logits` over many episodes against
/// softmax(logits / temperature).
void expectSoftmaxFrequencies(const std::vector<float> &logits,
                              float temperature) {
  const int k = static_cast<int>(logits.size());
  const int n = 40000;
  std::vector<int> counts(k, 0);
  for (int e = 0; e < n; ++e)
    ++counts[sampling::sampleAction(logits.data(), k, temperature, 12345, e,
                                    1)];
  double z = 0;
  for (float l : logits)
    z += std::exp(l / temperature);
  for (int i = 0; i < k; ++i) {
    const double p = std::exp(logits[i] / temperature) / z;
    const double sd = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(double(counts[i]) / n, p, 5 * sd + 1e-4)
        << "entry " << i << " at temperature " << temperature;
  }
}

TEST(Sampling, ActionsFollowTheSoftmaxAtTheTemperature) {
  expectSoftmaxFrequencies({0.f, 1.f, 2.f, -1.f}, 1.f);
  expectSoftmaxFrequencies({0.f, 1.f, 2.f, -1.f}, 2.f);
  expectSoftmaxFrequencies({0.f, 1.f, 2.f, -1.f}, 0.5f);
}

TEST(Sampling, HostSampleActionGivesTheIndexAndItsLogSoftmax) {
  const std::vector<float> logits = {0.3f, -1.2f, 2.5f, 2.5f, 0.f};
  const float tau = 0.7f;
  for (unsigned long long e = 0; e < 50; ++e) {
    const Action a = proofc::sampleAction(logits.data(), 5, tau, 9, e, 4);
    EXPECT_EQ(a.index, sampling::sampleAction(logits.data(), 5, tau, 9, e, 4));
    double z = 0;
    for (float l : logits)
      z += std::exp(double(l) / tau);
    EXPECT_NEAR(a.logp, double(logits[a.index]) / tau - std::log(z), 1e-12);
  }
  // One state: index 0, log-probability 0, whatever the logit.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Action single = proofc::sampleAction(&nan, 1, 1.f, 0, 0, 0);
  EXPECT_EQ(single.index, 0);
  EXPECT_EQ(single.logp, 0.0);
  // A non-finite logit among several: NaN, for the caller to report.
  const float bad[] = {0.f, std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(std::isnan(proofc::sampleAction(bad, 2, 1.f, 0, 0, 0).logp));
  // At temperature 1 its log-probability is the greedy rule's formula.
  const Action g = selectAction(logits.data(), 5);
  const Action s = proofc::sampleAction(logits.data(), 5, 1.f, 0, 0, 0);
  double z = 0;
  for (float l : logits)
    z += std::exp(double(l) - 2.5);
  EXPECT_NEAR(g.logp, (logits[g.index] - 2.5) - std::log(z), 1e-15);
  EXPECT_NEAR(s.logp, (logits[s.index] - 2.5) - std::log(z), 1e-15);
}

} // namespace
