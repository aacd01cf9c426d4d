//===- HostRollouts.cpp - Rollouts on the CPU -----------------------------===//
//
// HostBackend::rollouts() (Rollouts.h, docs/rollouts.md). Two phases:
//  1. The episodes, on the backend's threads (an atomic episode counter;
//     each episode whole on one thread): spec §5's loop with the step's
//     action chosen greedily (selectAction, exactly what run() does) or
//     drawn (sampleAction, docs/sampling.md). An episode records its start
//     state and every step's derived list, action and log-probability; s_t
//     for t > 0 is the previous list's chosen entry, so it is not stored.
//  2. The output, on the calling thread in episode order: the per-episode
//     and per-step tensors, and the state table (distinct states numbered
//     by first appearance: a support/RowTable of rows of 3A words keyed by
//     all of them), so that the result depends on nothing but the request
//     and the weights.
//
//===----------------------------------------------------------------------===//
#include "host/HostBackend.h"
#include "support/HostThreads.h"

#include "data/KnowledgeBase.h"
#include "data/MemoryBudget.h"
#include "host/Engine.h"
#include "host/HostPolicy.h"
#include "proofc/runtime/Rollouts.h"
#include "support/Cancellation.h"
#include "support/Fail.h"
#include "support/RowTable.h"
#include "support/Timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace proofc {

static_assert(sizeof(Atom) == 3 * sizeof(int32_t),
              "the state table reads Atom arrays as int32 [.., 3]");

struct HostBackend::RolloutStorage {
  std::vector<int32_t> status, depth, triple;
  std::vector<uint8_t> positive;
  std::vector<float> logp;
  /// [U][A] atoms, numbered by first appearance (rows of 3A words).
  std::unique_ptr<RowTable> states;
  std::vector<int32_t> stepEpisode, stepState, stepDerived, stepCount,
      stepAction;
  std::vector<float> stepLogp;
};

namespace {

/// One episode as phase 1 records it.
struct Episode {
  ProofStatus status = ProofStatus::Failed;
  double logp = 0;
  std::vector<Atom> start;     ///< [A]
  std::vector<Atom> derived;   ///< every step's list, [Σ k][A]
  std::vector<int32_t> count;  ///< [depth]
  std::vector<int32_t> action; ///< [depth]
  std::vector<float> stepLogp; ///< [depth]
};

/// What every thread of phase 1 reads.
struct Shared {
  const KnowledgeBase &kb;
  const HostPolicy &policy;
  const ShapeParams &shape;
  const RolloutRequest &request;
  std::vector<Episode> &episodes;
  const RunControl *control;
  std::atomic<int64_t> next{0};
  std::atomic<bool> abort{false};

  bool cancelled() const { return control && control->cancelled(); }
};

/// One thread's scratch (allocated once) and its episodes.
class Runner {
public:
  explicit Runner(Shared &shared)
      : sh_(shared), A_(shared.shape.A), W_(shared.policy.width()),
        derived_(shared.kb, shared.shape), goals_(A_), enc_(W_),
        childEnc_(size_t(shared.shape.S) * W_), logits_(shared.shape.S),
        scratch_(shared.policy.scratchSize()) {}

  void run() {
    const int64_t total = static_cast<int64_t>(sh_.episodes.size());
    const int64_t K = sh_.request.episodesPerTriple;
    while (!sh_.abort.load(std::memory_order_relaxed) && !sh_.cancelled()) {
      const int64_t e = sh_.next.fetch_add(1);
      if (e >= total)
        return;
      episode(e, sh_.request.triples[static_cast<size_t>(e / K)]);
    }
  }

private:
  void episode(int64_t e, const Triple &triple) {
    Episode &out = sh_.episodes[static_cast<size_t>(e)];
    const RolloutRequest &rq = sh_.request;
    const uint64_t id = rq.episodeBase + static_cast<uint64_t>(e);
    initialState(triple, A_, goals_.data());
    out.start.assign(goals_.begin(), goals_.end());
    bool encValid = false;
    double logp = 0;
    for (int32_t t = 0;; ++t) {
      derive(sh_.kb, goals_.data(), triple, sh_.shape, derived_);
      const int32_t k = derived_.count;
      Action a;
      if (k > 1) {
        if (!encValid)
          sh_.policy.encode(goals_.data(), A_, enc_.data(), scratch_.data());
        sh_.policy.encodeBatch(derived_.state(0), k, A_, childEnc_.data(),
                               scratch_.data());
        sh_.policy.logits(enc_.data(), childEnc_.data(), k, logits_.data());
        a = rq.mode == SelectMode::Sampled
                ? sampleAction(logits_.data(), k, rq.temperature, rq.seed, id,
                               static_cast<uint32_t>(t))
                : selectAction(logits_.data(), k);
        if (std::isnan(a.logp))
          fail("rollouts: episode {} (triple {}, global id {}) step {}: a "
               "logit over its {} derived states is not finite (the weights "
               "overflow)",
               e, e / rq.episodesPerTriple, id, t, k);
        std::copy_n(childEnc_.data() + size_t(a.index) * W_, W_, enc_.data());
        encValid = true;
      } else {
        encValid = false;
      }
      logp += a.logp;
      out.derived.insert(out.derived.end(), derived_.state(0),
                         derived_.state(0) + size_t(k) * A_);
      out.count.push_back(k);
      out.action.push_back(a.index);
      out.stepLogp.push_back(static_cast<float>(a.logp));
      std::copy_n(derived_.state(a.index), A_, goals_.data());
      if (derived_.isTrue())
        out.status = ProofStatus::Proved;
      else if (derived_.isFalse())
        out.status = ProofStatus::Failed;
      else if (t + 1 == sh_.shape.D)
        out.status = ProofStatus::Truncated;
      else
        continue;
      break;
    }
    out.logp = logp;
  }

  Shared &sh_;
  const int32_t A_, W_;
  DerivedSet derived_;
  std::vector<Atom> goals_;
  std::vector<float> enc_, childEnc_, logits_, scratch_;
};

/// `state`'s number in `states`, appended when it is new.
int32_t internState(RowTable &states, const Atom *state) {
  const auto *words = reinterpret_cast<const int32_t *>(state);
  const size_t id = states.intern(words, states.hash(words));
  if (id >= static_cast<size_t>(INT32_MAX))
    fail("rollouts: more than 2^31 - 1 distinct states in one call");
  return static_cast<int32_t>(id);
}

TensorView hostView(const void *data, std::vector<int64_t> shape,
                    const char *dtype) {
  TensorView v;
  v.data = data;
  v.shape = std::move(shape);
  v.dtype = dtype;
  v.memory = MemoryKind::Host;
  return v;
}

} // namespace

Trajectories HostBackend::rollouts(const RolloutInputs &inputs) {
  const auto runStart = Clock::now();
  const ShapeParams &shape = inputs.program.shape;
  if (shape.A < 1 || shape.S < 1 || shape.D < 1)
    fail("host backend: shape A = {}, S = {}, D = {} must all be at least 1",
         shape.A, shape.S, shape.D);
  if (inputs.deviceWeights)
    fail("host backend: rollouts take host weights");
  const RolloutRequest &rq = inputs.request;
  const std::shared_ptr<const KnowledgeBase> kbHeld =
      knowledgeBase(inputs.dataset, inputs.factsIncludeValid, inputs.kbId);
  const HostPolicy policy(inputs.program, inputs.weights,
                          inputs.dataset.numEntities(),
                          inputs.dataset.numRelations());
  const int64_t E =
      static_cast<int64_t>(rq.triples.size()) * rq.episodesPerTriple;
  std::vector<Episode> episodes(static_cast<size_t>(E));
  Shared shared{*kbHeld, policy, shape, rq, episodes, inputs.control};

  // Phase 1: the episodes.
  int threads = options_.threads > 0
                    ? options_.threads
                    : static_cast<int>(std::thread::hardware_concurrency());
  threads =
      static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, E)));
  std::vector<Runner> runners;
  runners.reserve(threads);
  for (int t = 0; t < threads; ++t)
    runners.emplace_back(shared);
  runHostWorkers(threads, shared.abort, [&](int t) { runners[t].run(); });
  // Every episode taken is finished: a flag raised after the last one was
  // taken leaves a complete result.
  if (shared.next.load() < E && shared.cancelled())
    throwInterrupted();

  // Phase 2: the tensors, in episode order.
  int64_t T = 0;
  for (const Episode &ep : episodes)
    T += static_cast<int64_t>(ep.count.size());
  const int64_t S = shape.S, A = shape.A;
  checkMemoryFits(
      saturatingBytes(saturatingBytes(static_cast<uint64_t>(T), S + 6), 4),
      "rollouts: the per-step tensors",
      fmt::format("{} steps × (S = {} + 6) × 4 B", T, S));
  if (!rollouts_)
    rollouts_ = std::make_shared<RolloutStorage>();
  RolloutStorage &out = *rollouts_;
  out.status.resize(static_cast<size_t>(E));
  out.depth.resize(static_cast<size_t>(E));
  out.triple.resize(static_cast<size_t>(E));
  out.positive.resize(static_cast<size_t>(E));
  out.logp.resize(static_cast<size_t>(E));
  out.stepEpisode.resize(static_cast<size_t>(T));
  out.stepState.resize(static_cast<size_t>(T));
  out.stepCount.resize(static_cast<size_t>(T));
  out.stepAction.resize(static_cast<size_t>(T));
  out.stepLogp.resize(static_cast<size_t>(T));
  out.stepDerived.assign(static_cast<size_t>(T * S), -1);
  const int32_t W = 3 * shape.A;
  if (out.states && out.states->rowWords() == W)
    out.states->clear(); // the last call's memory kept
  else
    out.states = std::make_unique<RowTable>(W, W);
  RowTable &states = *out.states;
  size_t row = 0;
  for (int64_t e = 0; e < E; ++e) {
    Episode &ep = episodes[static_cast<size_t>(e)];
    const size_t n = static_cast<size_t>(e / rq.episodesPerTriple);
    const int32_t depth = static_cast<int32_t>(ep.count.size());
    out.status[e] = static_cast<int32_t>(ep.status);
    out.depth[e] = depth;
    out.triple[e] = static_cast<int32_t>(n);
    out.positive[e] = rq.positive[n];
    out.logp[e] = static_cast<float>(ep.logp);
    int32_t current = internState(states, ep.start.data());
    const Atom *list = ep.derived.data();
    for (int32_t t = 0; t < depth; ++t, ++row) {
      const int32_t k = ep.count[t];
      out.stepEpisode[row] = static_cast<int32_t>(e);
      out.stepState[row] = current;
      out.stepCount[row] = k;
      out.stepAction[row] = ep.action[t];
      out.stepLogp[row] = ep.stepLogp[t];
      int32_t *derived = out.stepDerived.data() + row * size_t(S);
      for (int32_t i = 0; i < k; ++i)
        derived[i] = internState(states, list + size_t(i) * A);
      current = derived[ep.action[t]];
      list += size_t(k) * A;
    }
    std::vector<Atom>().swap(ep.derived); // the bulk: released as we go
  }
  const int64_t U = static_cast<int64_t>(states.size());

  Trajectories traj;
  traj.status = hostView(out.status.data(), {E}, "I32");
  traj.depth = hostView(out.depth.data(), {E}, "I32");
  traj.triple = hostView(out.triple.data(), {E}, "I32");
  traj.positive = hostView(out.positive.data(), {E}, "U8");
  traj.logp = hostView(out.logp.data(), {E}, "F32");
  traj.states = hostView(states.words(), {U, A, 3}, "I32");
  traj.stepEpisode = hostView(out.stepEpisode.data(), {T}, "I32");
  traj.stepState = hostView(out.stepState.data(), {T}, "I32");
  traj.stepDerived = hostView(out.stepDerived.data(), {T, S}, "I32");
  traj.stepCount = hostView(out.stepCount.data(), {T}, "I32");
  traj.stepAction = hostView(out.stepAction.data(), {T}, "I32");
  traj.stepLogp = hostView(out.stepLogp.data(), {T}, "F32");
  traj.episodes = E;
  traj.numStates = U;
  traj.steps = T;
  traj.runSeconds = secondsSince(runStart);
  return traj;
}

} // namespace proofc
