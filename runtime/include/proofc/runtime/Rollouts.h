//===- Rollouts.h - Episodes for a learner: the request and the output ---===//
//
// Session::rollouts() runs episodes of spec §5's proof loop for a batch of
// triples, with the action of every step drawn by eval.select's sampled
// mode (docs/sampling.md) or chosen greedily (spec §4), and hands back the
// trajectories as tensors on the session's device, laid out so that a
// learner computes log π(a_t | s_t) for every step in one batched pass
// (docs/rollouts.md describes every tensor). A backend implements it with
// Backend::rollouts(); this header is the contract between the session,
// the backends and the Python binding.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_ROLLOUTS_H
#define PROOFC_RUNTIME_ROLLOUTS_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Safetensors.h"
#include "proofc/runtime/TensorView.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace proofc {

/// One rollouts() call's episodes: every triple runs `episodesPerTriple`
/// times, episode e = n * K + k (triple n, repeat k) with the global id
/// episodeBase + e, which keys its draws (docs/sampling.md).
struct RolloutRequest {
  /// The N triples (head, relation, tail ids of the session's dataset).
  /// A triple is a candidate as in spec §5: its own fact is never used.
  std::vector<Triple> triples;
  /// [N]: 1 when triple n is a positive (a train triple), 0 for a
  /// corruption; carried to Trajectories::positive, not used by the engine.
  std::vector<uint8_t> positive;
  int32_t episodesPerTriple = 4; ///< K >= 1
  uint64_t seed = 0;             ///< the draws' Philox key
  /// The first episode's global id; episodeBase + N * K must not wrap.
  uint64_t episodeBase = 0;
  /// Sampled: softmax(logits / temperature), temperature > 0 and finite.
  /// Greedy: spec §4's action (and log-probability), temperature unused.
  SelectMode mode = SelectMode::Sampled;
  float temperature = 1.0f;
};

/// What rollouts() produced: views of tensors the session owns (on its
/// device: host memory for the host backend, the GPU's for CUDA), valid
/// until the session's next call (evaluate or rollouts) or its end.
/// E = N * K episodes, U distinct states, T steps (all steps of all
/// episodes, episode-major, in step order); A and S are the program's.
/// dtypes: "I32" (int32), "U8" (uint8), "F32" (float32). docs/rollouts.md.
struct Trajectories {
  // Per episode [E].
  TensorView status;   ///< I32: ProofStatus (0 proved, 1 failed, 2 trunc.)
  TensorView depth;    ///< I32: steps taken (the episode's steps in T)
  TensorView triple;   ///< I32: n, the triple's index in the request
  TensorView positive; ///< U8: the request's positive[n]
  TensorView logp;     ///< F32: the sum of its steps' step_logp
  /// [U, A, 3] I32: every distinct canonical state the batch visited or
  /// derived, once (the encoding of python/proofc/torch.py: constants
  /// >= 0, variable Vk = -k, padding atoms (-1, 0, 0), TRUE and FALSE as
  /// (R, 0, 0) and (R + 1, 0, 0)); numbered by first appearance in step
  /// order (s_t, then its derived list).
  TensorView states;
  // Per step [T].
  TensorView stepEpisode; ///< I32: e, the episode's index in [0, E)
  TensorView stepState;   ///< I32: s_t, a row of `states`
  TensorView stepDerived; ///< I32 [T, S]: the derived list's rows, -1 after
  TensorView stepCount;   ///< I32: the derived list's length k >= 1
  TensorView stepAction;  ///< I32: a_t in [0, k)
  /// F32: log softmax(logits / temperature)[a_t] as the engine computed it
  /// (greedy: log softmax(logits)[a_t]); 0 when k == 1.
  TensorView stepLogp;
  int64_t episodes = 0;   ///< E
  int64_t numStates = 0;  ///< U
  int64_t steps = 0;      ///< T
  double runSeconds = 0;  ///< the backend's episodes
  double callSeconds = 0; ///< the whole call, checks included
};

/// Everything a backend's rollouts() needs, bound at call time (the
/// counterpart of EvalInputs). The session has checked the request (ids in
/// range, sizes, temperature, the program's modes) and the weights.
struct RolloutInputs {
  const ProgramSpec &program;
  const Dataset &dataset;
  const TensorMap &weights; ///< empty when deviceWeights is set
  const RolloutRequest &request;
  bool factsIncludeValid = false;
  /// The weights on the CUDA backend's device (as EvalInputs').
  const std::map<std::string, DeviceWeight> *deviceWeights = nullptr;
  /// Non-zero: the same dataset and facts as every earlier call with this
  /// id (the session's), so the backend may keep its knowledge base.
  uint64_t kbId = 0;
  const RunControl *control = nullptr;
};

/// Checks `request` against `program` and `dataset` (ids in range, one
/// positive flag per triple, K >= 1, N * K within int32 and episodeBase +
/// N * K without wrapping, a finite temperature > 0 when sampled, the
/// program supports the mode); throws proofc::Error naming the field.
void checkRolloutRequest(const RolloutRequest &request,
                         const ProgramSpec &program, const Dataset &dataset);

} // namespace proofc

#endif // PROOFC_RUNTIME_ROLLOUTS_H
