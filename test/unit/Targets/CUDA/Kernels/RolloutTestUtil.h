//===- RolloutTestUtil.h - Rollout kernel tests' episodes -*- C++ -*-===//
//
// Shared by the CPU-emulated rollout kernel tests and the GPU ones
// (docs/rollouts-cuda.md): episodes by random walks over the host engine,
// docs/rollouts.md's layout of them built the obvious way (the expected
// state table and step arrays), the test kernel that calls sample.cu's
// select and trajectory.cu's recording as a step of the schedules does, and
// a rollouts call's tensors copied to the host and compared with another
// call's (the emulated and the GPU CUDA paths against the host backend).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_ROLLOUTTESTUTIL_H
#define PROOFC_TEST_UNIT_CUDA_ROLLOUTTESTUTIL_H

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "data/KnowledgeBase.h"
#include "host/Engine.h"
#include "proofc/runtime/Rollouts.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace proofc::test {

/// One recorded step of a host episode.
struct HostStep {
  std::vector<Atom> parent;  // [A]
  std::vector<Atom> derived; // [count][A]
  int count = 0, action = 0;
  float logp = 0.f;
};

/// hostEpisodes' batches: episode q is of triple q / kEpisodesPerTriple.
constexpr int kEpisodesPerTriple = 2;

/// The positive flags the layout tests give the triples of `episodes`
/// episodes: triple n is positive when n % 3 == 0.
inline std::vector<uint8_t> layoutPositives(int episodes) {
  std::vector<uint8_t> out;
  for (int n = 0; n < episodes / kEpisodesPerTriple; ++n)
    out.push_back(static_cast<uint8_t>(n % 3 == 0));
  return out;
}

/// Episodes by random walks over the host engine (uniform actions, random
/// log-probabilities: the layout does not look at them); episodes of one
/// triple come kEpisodesPerTriple at a time.
inline std::vector<std::vector<HostStep>>
hostEpisodes(const Dataset &ds, const KnowledgeBase &kb,
             const ShapeParams &shape, int episodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  DerivedSet derived(kb, shape);
  std::vector<std::vector<HostStep>> out(episodes);
  for (int q = 0; q < episodes; ++q) {
    const Triple c =
        ds.train[(q / kEpisodesPerTriple * 7919) % ds.train.size()];
    std::vector<Atom> state(shape.A);
    initialState(c, shape.A, state.data());
    for (int t = 0; t < shape.D; ++t) {
      derive(kb, state.data(), c, shape, derived);
      HostStep s;
      s.parent = state;
      s.count = derived.count;
      for (int i = 0; i < derived.count; ++i)
        s.derived.insert(s.derived.end(), derived.state(i),
                         derived.state(i) + shape.A);
      s.action = static_cast<int>(rng() % static_cast<uint64_t>(s.count));
      s.logp = -static_cast<float>(rng() % 1000) / 256.f;
      state.assign(derived.state(s.action), derived.state(s.action) + shape.A);
      out[q].push_back(std::move(s));
      if (derived.isTrue() || derived.isFalse())
        break;
    }
  }
  return out;
}

/// docs/rollouts.md's layout of `episodes`: states numbered by first
/// appearance (episode-major, s_t before its list), the step arrays, and
/// per episode its triple, the triple's flag (layoutPositives) and the sum
/// of its steps' log-probabilities in double, rounded once.
struct ExpectedLayout {
  std::vector<int> states, stepEpisode, stepState, stepDerived, stepCount,
      stepAction, depth, triple;
  std::vector<float> stepLogp, logp;
  std::vector<uint8_t> positive;
  size_t occurrences = 0; ///< states over all steps, repeats included
  int W = 0;

  ExpectedLayout(const std::vector<std::vector<HostStep>> &episodes,
                 const ShapeParams &shape)
      : W(3 * shape.A) {
    std::map<std::vector<int32_t>, int> number;
    auto numberOf = [&](const Atom *st) {
      const int32_t *w = reinterpret_cast<const int32_t *>(st);
      auto [it, added] =
          number.emplace(std::vector<int32_t>(w, w + 3 * shape.A),
                         static_cast<int>(number.size()));
      if (added)
        states.insert(states.end(), it->first.begin(), it->first.end());
      return it->second;
    };
    const std::vector<uint8_t> positives =
        layoutPositives(static_cast<int>(episodes.size()));
    for (size_t q = 0; q < episodes.size(); ++q) {
      depth.push_back(static_cast<int>(episodes[q].size()));
      const int n = static_cast<int>(q) / kEpisodesPerTriple;
      triple.push_back(n);
      positive.push_back(positives[n]);
      double sum = 0;
      for (const HostStep &s : episodes[q]) {
        sum += s.logp;
        stepEpisode.push_back(static_cast<int>(q));
        stepState.push_back(numberOf(s.parent.data()));
        for (int i = 0; i < shape.S; ++i)
          stepDerived.push_back(
              i < s.count ? numberOf(s.derived.data() + i * shape.A) : -1);
        stepCount.push_back(s.count);
        stepAction.push_back(s.action);
        stepLogp.push_back(s.logp);
        occurrences += 1 + static_cast<size_t>(s.count);
      }
      logp.push_back(static_cast<float>(sum));
    }
  }
  int numStates() const { return static_cast<int>(states.size()) / W; }
};

/// A kernel doing what a step of the rollouts' schedules adds, slot b per
/// block: sample.cu's select under temperature > 0 (action[b] as given
/// otherwise: the greedy kernel's), then, with record != 0, trajectory.cu's
/// recording of episode[b]'s step step[b]. Appended to engine.cu, sample.cu
/// and trajectory.cu inlined (rolloutTestSource()).
inline const char *kRolloutTestKernel = R"(
extern "C" __global__ void proofc_test_rollout_step(
    const float *logits, const int *counts, float temperature,
    unsigned long long seed, unsigned long long episodeBase,
    const int *episode, const int *step, const int *state, const int *derived,
    int *action, float *actionLogp, int record, int *table, int entries,
    int *overflow, int D, int *stepState, int *stepDerived, int *stepCount,
    int *stepAction, float *stepLogp) {
  __shared__ proofc_sample::Scratch scratch;
  const int b = blockIdx.x;
  if (temperature > 0.f)
    proofc_sample::selectSampled(scratch, logits + (long long)b * PROOFC_S,
                                 counts[b], temperature, seed,
                                 episodeBase + episode[b], step[b],
                                 action + b, actionLogp + b);
  if (record) {
    const proofc_traj::Recorder rec{table,     entries,     overflow,
                                    D,         stepState,   stepDerived,
                                    stepCount, stepAction,  stepLogp};
    proofc_traj::recordStep(rec, state + (long long)b * 3 * PROOFC_A,
                            derived + (long long)b * PROOFC_S * 3 * PROOFC_A,
                            counts[b], action[b], actionLogp[b], episode[b],
                            step[b]);
  }
}
)";

/// engine.cu, sample.cu and trajectory.cu as the step templates inline
/// them (rollout.cu), then kRolloutTestKernel: one NVRTC source (-DPROOFC_A,
/// -DPROOFC_S, -DPROOFC_ENGINE_THREADS).
inline std::string rolloutTestSource() {
  std::vector<std::string> seen = {"engine.cu", "sample.cu", "trajectory.cu"};
  return kernelTemplate("engine.cu", &seen) +
         kernelTemplate("sample.cu", &seen) +
         kernelTemplate("trajectory.cu", &seen) + kRolloutTestKernel;
}

/// runtime/src/cuda/kernels/trajectory.cu, the finishing kernels (no
/// includes), and their entry points.
inline std::string trajectoryFinishSource() {
  return readFile(sourceDir() + "/runtime/src/cuda/kernels/trajectory.cu");
}
inline const std::vector<const char *> kTrajectoryFinishEntries = {
    "proofc_traj_mark",     "proofc_traj_scan_blocks", "proofc_traj_scan_sums",
    "proofc_traj_scan_add", "proofc_traj_states",      "proofc_traj_steps",
    "proofc_traj_episodes"};

/// A rollouts call's tensors (docs/rollouts.md) copied to the host.
struct RolloutTensors {
  std::vector<int32_t> status, depth, triple, states, stepEpisode, stepState,
      stepDerived, stepCount, stepAction;
  std::vector<uint8_t> positive;
  std::vector<float> logp, stepLogp;
};

/// `t`'s tensors, each view's bytes copied by copyOut(view, dst, bytes)
/// (from the host or the device).
template <typename CopyOut>
RolloutTensors rolloutTensors(const Trajectories &t, CopyOut copyOut) {
  auto read = [&](const TensorView &v, auto &out) {
    int64_t n = 1;
    for (int64_t d : v.shape)
      n *= d;
    out.resize(static_cast<size_t>(n));
    if (n > 0)
      copyOut(v, static_cast<void *>(out.data()), out.size() * sizeof(out[0]));
  };
  RolloutTensors r;
  read(t.status, r.status);
  read(t.depth, r.depth);
  read(t.triple, r.triple);
  read(t.positive, r.positive);
  read(t.logp, r.logp);
  read(t.states, r.states);
  read(t.stepEpisode, r.stepEpisode);
  read(t.stepState, r.stepState);
  read(t.stepDerived, r.stepDerived);
  read(t.stepCount, r.stepCount);
  read(t.stepAction, r.stepAction);
  read(t.stepLogp, r.stepLogp);
  return r;
}

/// `t`'s tensors, in host memory (the host backend's).
inline RolloutTensors rolloutTensors(const Trajectories &t) {
  return rolloutTensors(t, [](const TensorView &v, void *dst, size_t bytes) {
    std::memcpy(dst, v.data, bytes);
  });
}

/// Every tensor of `got` is `host`'s, the steps' and the episodes'
/// log-probabilities within stepLogpTol and logpTol.
inline void expectSameRollouts(const RolloutTensors &host,
                               const RolloutTensors &got, double stepLogpTol,
                               double logpTol) {
  EXPECT_EQ(got.status, host.status);
  EXPECT_EQ(got.depth, host.depth);
  EXPECT_EQ(got.triple, host.triple);
  EXPECT_EQ(got.positive, host.positive);
  EXPECT_EQ(got.states, host.states);
  EXPECT_EQ(got.stepEpisode, host.stepEpisode);
  EXPECT_EQ(got.stepState, host.stepState);
  EXPECT_EQ(got.stepDerived, host.stepDerived);
  EXPECT_EQ(got.stepCount, host.stepCount);
  EXPECT_EQ(got.stepAction, host.stepAction);
  ASSERT_EQ(got.stepLogp.size(), host.stepLogp.size());
  for (size_t i = 0; i < host.stepLogp.size(); ++i)
    EXPECT_NEAR(got.stepLogp[i], host.stepLogp[i], stepLogpTol) << "step " << i;
  ASSERT_EQ(got.logp.size(), host.logp.size());
  for (size_t i = 0; i < host.logp.size(); ++i)
    EXPECT_NEAR(got.logp[i], host.logp[i], logpTol) << "episode " << i;
}

/// The episodes whose actions differ between a and b (their depths, or the
/// action of a step).
inline int differingEpisodes(const RolloutTensors &a, const RolloutTensors &b) {
  int differ = 0;
  size_t atA = 0, atB = 0;
  for (size_t e = 0; e < a.depth.size(); ++e) {
    bool same = a.depth[e] == b.depth[e];
    for (int32_t t = 0; same && t < a.depth[e]; ++t)
      same = a.stepAction[atA + t] == b.stepAction[atB + t];
    differ += !same;
    atA += static_cast<size_t>(a.depth[e]);
    atB += static_cast<size_t>(b.depth[e]);
  }
  return differ;
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_ROLLOUTTESTUTIL_H
