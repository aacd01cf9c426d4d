//===- HostBackend.cpp - The CPU reference backend ------------------------===//
//
// Each worker thread owns a contiguous share of the B slots and all scratch
// for them (one DerivedSet, child encodings, logits), allocated before the
// loop, so a step allocates nothing. enc(G) of a slot is carried over from
// the step that chose G (it was one of the child encodings); it is computed
// afresh only for a start state or after a step with a single derived state,
// where no encoding was needed to choose (spec §4: k = 1 gives action 0 and
// log-probability 0).
//
// The run's step memo (StepMemo.h), shared by the workers, answers every
// step it has seen from the same state (keyed by the candidate where spec §3
// lets the candidate matter), so that such a step neither derives nor
// encodes; outcomes and actions are those of the memo off. A candidate's
// start state is its own (its first goal is its triple), so its first step
// is neither looked up nor kept.
//
//===----------------------------------------------------------------------===//
#include "host/HostBackend.h"
#include "support/HostThreads.h"

#include "data/KnowledgeBase.h"
#include "data/MemoryBudget.h"
#include "host/Engine.h"
#include "host/HostPolicy.h"
#include "host/StepMemo.h"
#include "support/Cancellation.h"
#include "support/Fail.h"
#include "support/MemoSize.h"
#include "support/Timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

namespace proofc {
namespace {

/// Read-only state shared by the workers.
struct Shared {
  const KnowledgeBase &kb;
  const HostPolicy &policy;
  const ShapeParams &shape;
  const std::vector<Candidate> &candidates;
  std::vector<Outcome> &outcomes;
  /// [candidates][D] when the actions are recorded (EvalInputs::actions).
  int32_t *actions = nullptr;
  /// The run's step memo; null when it is off (--memo-entries 0).
  StepMemo *memo = nullptr;
  std::atomic<int64_t> nextCandidate{0};
  std::atomic<bool> abort{false};
  const RunControl *control = nullptr;
  std::atomic<int64_t> finished{0}; ///< candidates whose Outcome is written
  std::mutex progressMutex{};       ///< one progress call at a time
  int64_t reported = 0;             ///< the last total reported (its mutex)

  bool cancelled() const { return control && control->cancelled(); }
  /// Adds `n` finished candidates and reports the total, unless another
  /// worker is reporting right now (the next report, or reportFinal,
  /// carries this one).
  void finish(int64_t n) {
    finished.fetch_add(n);
    if (!control || !control->progress)
      return;
    std::unique_lock<std::mutex> lock(progressMutex, std::try_to_lock);
    if (lock.owns_lock())
      reportLocked();
  }
  /// After the workers: the whole total, where the last add's report was
  /// skipped because another worker was reporting.
  void reportFinal() {
    if (!control || !control->progress)
      return;
    std::lock_guard<std::mutex> lock(progressMutex);
    reportLocked();
  }

private:
  /// The total read under progressMutex, not before it: a report then sees
  /// every add the report before it saw, so the totals never go down
  /// (RunControl::progress). A worker that added 10 and another that added
  /// 12 after it used to report 12, then 10 (RunSession's
  /// ProgressReachesTheTotalAndIsNonDecreasing, in CI on 7b44deb).
  void reportLocked() {
    const int64_t total = finished.load();
    if (total == reported)
      return;
    reported = total;
    control->report(total);
  }
};

/// One thread's slots and scratch.
class Worker {
public:
  Worker(Shared &shared, int32_t numSlots)
      : sh_(shared), A_(shared.shape.A), W_(shared.policy.width()),
        derived_(shared.kb, shared.shape), slotCand_(numSlots, -1),
        slotDepth_(numSlots, 0), slotLogp_(numSlots, 0.0),
        slotEncValid_(numSlots, 0), slotGoals_(size_t(numSlots) * A_),
        chosen_(A_), slotEnc_(size_t(numSlots) * W_),
        childEnc_(size_t(shared.shape.S) * W_), logits_(shared.shape.S),
        scratch_(shared.policy.scratchSize()) {}

  /// Runs until every slot is empty and the pool is exhausted; returns the
  /// number of steps.
  int64_t run() {
    const int32_t n = static_cast<int32_t>(slotCand_.size());
    int32_t live = 0;
    for (int32_t s = 0; s < n; ++s)
      live += refill(s);
    int64_t steps = 0;
    while (live > 0 && !sh_.abort.load(std::memory_order_relaxed) &&
           !sh_.cancelled()) {
      int64_t finished = 0;
      for (int32_t s = 0; s < n; ++s) {
        if (slotCand_[s] < 0 || step(s))
          continue;
        ++finished;
        if (!refill(s))
          --live; // finished and the pool is empty
      }
      if (finished > 0)
        sh_.finish(finished);
      ++steps;
    }
    return steps;
  }

private:
  /// Loads the next pool candidate into slot s; false when the pool is
  /// exhausted (the slot stays empty).
  bool refill(int32_t s) {
    const int64_t c = sh_.nextCandidate.fetch_add(1);
    if (c >= static_cast<int64_t>(sh_.candidates.size())) {
      slotCand_[s] = -1;
      return false;
    }
    slotCand_[s] = c;
    slotDepth_[s] = 0;
    slotLogp_[s] = 0.0;
    slotEncValid_[s] = 0;
    initialState(sh_.candidates[c].triple, A_, goals(s));
    return true;
  }

  Atom *goals(int32_t s) { return slotGoals_.data() + size_t(s) * A_; }
  float *enc(int32_t s) { return slotEnc_.data() + size_t(s) * W_; }

  /// One §5 iteration for slot s; returns false when the candidate finished
  /// (its Outcome is written).
  bool step(int32_t s) {
    const Candidate &cand = sh_.candidates[slotCand_[s]];
    const bool memo = sh_.memo && slotDepth_[s] > 0;
    if (memo)
      sh_.memo->key(goals(s), cand.triple, memoKey_);
    int32_t action = 0;
    double logp = 0.0;
    if (memo && sh_.memo->find(memoKey_, chosen_.data(), &logp, &action)) {
      // The step as computed below would give it, bit for bit: the chosen
      // state, the log-probability (0 for a single child; the sum is never
      // -0.0, so adding it changes nothing) and the action. G's encoding is
      // made afresh at the next computed step.
      std::copy_n(chosen_.data(), A_, goals(s));
      slotEncValid_[s] = 0;
    } else {
      derive(sh_.kb, goals(s), cand.triple, sh_.shape, derived_);
      const int32_t k = derived_.count;
      if (k > 1) {
        if (!slotEncValid_[s])
          sh_.policy.encode(goals(s), A_, enc(s), scratch_.data());
        sh_.policy.encodeBatch(derived_.state(0), k, A_, childEnc_.data(),
                               scratch_.data());
        sh_.policy.logits(enc(s), childEnc_.data(), k, logits_.data());
        const Action a = selectAction(logits_.data(), k);
        action = a.index;
        logp = a.logp;
        std::copy_n(childEnc_.data() + size_t(action) * W_, W_, enc(s));
        slotEncValid_[s] = 1;
      } else {
        slotEncValid_[s] = 0;
      }
      if (memo)
        sh_.memo->insert(memoKey_, derived_.state(action), logp, action);
      std::copy_n(derived_.state(action), A_, goals(s));
    }
    slotLogp_[s] += logp;
    if (sh_.actions) // one row per candidate: no two threads share one
      sh_.actions[slotCand_[s] * sh_.shape.D + slotDepth_[s]] = action;
    const int32_t depth = ++slotDepth_[s];
    // [TRUE] and [FALSE] are derive's only lists with those predicates, and
    // are single states (spec §3 steps 5 and 7).
    ProofStatus status;
    if (goals(s)[0].p == sh_.kb.truePred())
      status = ProofStatus::Proved;
    else if (goals(s)[0].p == sh_.kb.falsePred())
      status = ProofStatus::Failed;
    else if (depth == sh_.shape.D)
      status = ProofStatus::Truncated;
    else
      return true;
    Outcome &o = sh_.outcomes[slotCand_[s]];
    o.status = status;
    o.depth = depth;
    o.logp = static_cast<float>(slotLogp_[s]);
    return false;
  }

  Shared &sh_;
  const int32_t A_, W_;
  DerivedSet derived_;
  std::vector<int64_t> slotCand_;
  std::vector<int32_t> slotDepth_;
  std::vector<double> slotLogp_;
  std::vector<uint8_t> slotEncValid_;
  std::vector<Atom> slotGoals_; ///< [slots][A]
  std::vector<Atom> chosen_;    ///< [A]: a step taken from the memo
  StepMemo::Key memoKey_;       ///< the step's key (its words reused)
  std::vector<float> slotEnc_;  ///< [slots][W]
  std::vector<float> childEnc_; ///< [S][W]
  std::vector<float> logits_;   ///< [S]
  std::vector<float> scratch_;
};

/// What the workers allocate (Worker's members), checked before any of it
/// is: S = 10^9 used to end as std::bad_alloc (or, past 2^30, a hang).
void checkScratchFits(const ShapeParams &shape, const HostPolicy &policy,
                      int threads, int32_t slots) {
  const uint64_t S = static_cast<uint64_t>(shape.S);
  const uint64_t A = static_cast<uint64_t>(shape.A);
  const uint64_t W = static_cast<uint64_t>(policy.width());
  // Per thread: the derived states, S child encodings and S logits.
  uint64_t perThread = saturatingAdd(
      DerivedSet::bytesFor(shape),
      saturatingAdd(saturatingBytes(S, saturatingBytes(W + 1, sizeof(float))),
                    saturatingBytes(policy.scratchSize(), sizeof(float))));
  // Per slot: the goals, the encoding, candidate, depth, logp, valid flag.
  uint64_t perSlot = A * sizeof(Atom) + W * sizeof(float) + sizeof(int64_t) +
                     sizeof(int32_t) + sizeof(double) + sizeof(uint8_t);
  uint64_t total = saturatingAdd(saturatingBytes(threads, perThread),
                                 saturatingBytes(slots, perSlot));
  checkMemoryFits(
      total,
      fmt::format("host backend: the proof-loop scratch for S = {}, A = {}, "
                  "d = {}",
                  shape.S, shape.A, W),
      fmt::format("{} threads × {} + {} slots × {} B", threads,
                  formatBytes(perThread), formatCount(slots), perSlot));
}

/// The run's step memo over `candidates` candidates, or null when
/// `requested` turns it off: --memo-entries' rule (support/MemoSize.h), auto
/// within a quarter of the available memory. The memo grows with the steps
/// it keeps, at most one a step past the start state, so what a requested
/// size could take is checked up front for no more steps than the run has.
std::unique_ptr<StepMemo> makeStepMemo(int64_t requested, int64_t candidates,
                                       const ShapeParams &shape) {
  const uint64_t entryBytes = StepMemo::entryBytes(shape.A);
  const int64_t entries = memoEntriesWithin(requested, candidates,
                                            availableMemoryBytes(), entryBytes);
  if (entries == 0)
    return nullptr;
  const uint64_t steps = saturatingBytes(static_cast<uint64_t>(candidates),
                                         static_cast<uint64_t>(shape.D - 1));
  const uint64_t kept = std::min(static_cast<uint64_t>(entries), steps);
  checkMemoryFits(
      saturatingBytes(kept, entryBytes),
      requested < 0
          ? fmt::format("host backend: the step memo ({} entries, auto)",
                        entries)
          : fmt::format("host backend: the step memo (--memo-entries {})",
                        entries),
      fmt::format("up to {} steps × {}", formatCount(kept),
                  formatBytes(entryBytes)));
  return std::make_unique<StepMemo>(shape.A, entries);
}

} // namespace

HostBackendOptions hostBackendOptions(const BackendOptions &options) {
  HostBackendOptions host;
  host.threads = options.threads;
  host.memoEntries = options.memoEntries;
  return host;
}

std::string hostDeviceName(int threads, int slots) {
  int used = threads > 0
                 ? threads
                 : static_cast<int>(std::thread::hardware_concurrency());
  used = std::max(1, std::min(used, slots));
  return fmt::format("cpu ({} thread{})", used, used == 1 ? "" : "s");
}

std::shared_ptr<const KnowledgeBase>
HostBackend::knowledgeBase(const Dataset &dataset, bool factsIncludeValid,
                           uint64_t id) {
  if (id == 0 || id != kbPool_ || !kb_) {
    kb_ = std::make_shared<const KnowledgeBase>(
        buildKnowledgeBase(dataset, factsIncludeValid));
    kbPool_ = id;
  }
  return kb_;
}

std::vector<Outcome> HostBackend::run(const EvalInputs &inputs,
                                      BackendTimings &timings) {
  const auto setupStart = Clock::now();
  const ShapeParams &shape = inputs.program.shape;
  if (shape.A < 1 || shape.S < 1 || shape.D < 1 || shape.B < 1)
    fail("host backend: shape A = {}, S = {}, D = {}, B = {} must all be at "
         "least 1",
         shape.A, shape.S, shape.D, shape.B);
  // A session's later runs over its pool reuse the knowledge base.
  const std::shared_ptr<const KnowledgeBase> kbHeld =
      knowledgeBase(inputs.dataset, inputs.factsIncludeValid, inputs.poolId);
  const KnowledgeBase &kb = *kbHeld;
  const HostPolicy policy(inputs.program, inputs.weights,
                          inputs.dataset.numEntities(),
                          inputs.dataset.numRelations());
  const std::vector<Candidate> &candidates = inputs.candidates.candidates;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Triple &t = candidates[i].triple;
    if (t.r < 0 || t.r >= kb.numRelations || t.h < 0 || t.h >= kb.numEntities ||
        t.t < 0 || t.t >= kb.numEntities)
      fail("host backend: candidate {} ({}, {}, {}) has an id out of range", i,
           t.h, t.r, t.t);
  }
  std::vector<Outcome> outcomes(candidates.size());
  Shared shared{kb, policy, shape, candidates, outcomes};
  shared.control = inputs.control;
  if (inputs.actions) {
    checkMemoryFits(saturatingBytes(saturatingBytes(candidates.size(), shape.D),
                                    sizeof(int32_t)),
                    "host backend: the recorded actions (--proofs)",
                    fmt::format("{} candidates × D = {} × 4 B",
                                candidates.size(), shape.D));
    inputs.actions->D = shape.D;
    inputs.actions->actions.assign(candidates.size() * size_t(shape.D), -1);
    shared.actions = inputs.actions->actions.data();
  }

  int threads = options_.threads > 0
                    ? options_.threads
                    : static_cast<int>(std::thread::hardware_concurrency());
  // B slots, but never more than there are candidates: a slot without a
  // candidate does nothing, and B only changes the speed (outcomes are per
  // candidate), so B = 2^31 - 1 over a small pool allocates no idle slots.
  const int32_t slots = static_cast<int32_t>(std::max<int64_t>(
      1, std::min<int64_t>(shape.B, static_cast<int64_t>(candidates.size()))));
  threads = std::max(1, std::min(threads, slots));
  checkScratchFits(shape, policy, threads, slots);
  const std::unique_ptr<StepMemo> memo = makeStepMemo(
      options_.memoEntries, static_cast<int64_t>(candidates.size()), shape);
  shared.memo = memo.get();
  std::vector<Worker> workers;
  workers.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    const int32_t begin = int32_t(int64_t(slots) * t / threads);
    const int32_t end = int32_t(int64_t(slots) * (t + 1) / threads);
    workers.emplace_back(shared, end - begin);
  }
  timings.setupSeconds = secondsSince(setupStart);

  const auto runStart = Clock::now();
  std::vector<int64_t> steps(threads, 0);
  runHostWorkers(threads, shared.abort,
                 [&](int t) { steps[t] = workers[t].run(); });
  // Workers stop early only when cancelled; a flag raised after the last
  // candidate finished leaves a complete result.
  if (shared.finished.load() < static_cast<int64_t>(candidates.size()) &&
      shared.cancelled())
    throwInterrupted();
  shared.reportFinal();
  timings.runSeconds = secondsSince(runStart);
  timings.steps = *std::max_element(steps.begin(), steps.end());
  return outcomes;
}

} // namespace proofc
