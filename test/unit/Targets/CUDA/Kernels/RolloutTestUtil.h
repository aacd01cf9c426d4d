//===- RolloutTestUtil.h - Rollout kernel tests' episodes -*- C++ -*-===//
//
// Shared by the CPU-emulated rollout kernel tests and the GPU ones
// (docs/rollouts-cuda.md): episodes by random walks over the host engine,
// docs/rollouts.md's layout of them built the obvious way (the expected
// state table and step arrays), and the test kernel that calls sample.cu's
// select and trajectory.cu's recording as a step of the schedules will.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_ROLLOUTTESTUTIL_H
#define PROOFC_TEST_UNIT_CUDA_ROLLOUTTESTUTIL_H

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "data/KnowledgeBase.h"
#include "host/Engine.h"

#include <cstdint>
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

/// Episodes by random walks over the host engine (uniform actions, random
/// log-probabilities: the layout does not look at them); episodes of one
/// triple come two at a time.
inline std::vector<std::vector<HostStep>>
hostEpisodes(const Dataset &ds, const KnowledgeBase &kb,
             const ShapeParams &shape, int episodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  DerivedSet derived(kb, shape);
  std::vector<std::vector<HostStep>> out(episodes);
  for (int q = 0; q < episodes; ++q) {
    const Triple c = ds.train[(q / 2 * 7919) % ds.train.size()];
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
/// appearance (episode-major, s_t before its list), the step arrays.
struct ExpectedLayout {
  std::vector<int> states, stepEpisode, stepState, stepDerived, stepCount,
      stepAction, depth;
  std::vector<float> stepLogp;
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
    for (size_t q = 0; q < episodes.size(); ++q) {
      depth.push_back(static_cast<int>(episodes[q].size()));
      for (const HostStep &s : episodes[q]) {
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

/// engine.cu, sample.cu and trajectory.cu as the step templates will inline
/// them, then kRolloutTestKernel: one NVRTC source (-DPROOFC_A, -DPROOFC_S,
/// -DPROOFC_ENGINE_THREADS).
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

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_ROLLOUTTESTUTIL_H
