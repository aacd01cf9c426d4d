//===- RolloutKernelsEmulationTest.cpp - Sampled select, trajectories, CPU
//-===//
//
// The CUDA side of rollouts (docs/rollouts-cuda.md) run through the CUDA
// shim, against the host's definitions:
//  - sample.cu's block-wide sampled select draws the action of
//    runtime/contract's Sampling.h (the host backend's rule) and the
//    log-probability log softmax(logits / T)[a] in double, the same bits at
//    every block size (its fixed-point sum does not depend on the order the
//    threads add in);
//  - the CUDA path of a rollouts call end to end (step.cu compiled for
//    rollouts: init, engine, the fused advance with rollout.cu's draw and
//    recording, memo off; then the finishing pass; the policy's logits and
//    greedy choice from HostPolicy, standing in for the generated kernel,
//    which has no CPU emulation) gives the host backend's rollouts: every
//    tensor equal, the log-probabilities within spec §7;
//  - trajectory.cu's recording plus runtime/src/cuda/kernels/trajectory.cu's
//    finishing pass give exactly docs/rollouts.md's state table (numbered by
//    first appearance, s_t before its derived list, episode-major) and step
//    arrays, whatever order the slots recorded their steps in; a table too
//    small says so (overflow) instead of losing states silently.
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#define PROOFC_A 6
#define PROOFC_S 120
#define PROOFC_ENGINE_THREADS 32
// step.cu's rollouts module (rollout.cu).
#define PROOFC_ROLLOUT 1
// RolloutKernelsListedEmulationTest.cpp compiles this file again with
// PROOFC_ROLLOUT_LISTED: step.cu as proofc compile builds the advance
// module from B = 8192 (kernel_abi.h's kEngineListOption), whose
// advance-engine lists the active slots for its own next launch and
// resizes that launch's node. The CUDA path's tests run once more on it
// (suites named with Listed); the kernels, the device variable and the
// node hook are renamed apart from this copy (ROLLOUT_ENTRY), and so is
// every inline function whose body differs between the copies (those
// that use the variable or the hook): the link keeps one copy of an
// inline function, and the sanitizer build, which does not inline them,
// ran the listed kernel with the other copy's rolloutStep.
#ifdef PROOFC_ROLLOUT_LISTED
#define PROOFC_ENGINE_LIST 1
#define ROLLOUT_ENTRY(name) name##_listed
#define ROLLOUT_TEST(name) name##Listed
#define cudaGraphKernelNodeSetGridDim                                          \
  ROLLOUT_ENTRY(cudaGraphKernelNodeSetGridDim)
#define setNodeGrid ROLLOUT_ENTRY(setNodeGrid)
#define proofc_rollout_params ROLLOUT_ENTRY(proofc_rollout_params)
#define proofc_rollout ROLLOUT_ENTRY(proofc_rollout)
#define proofc_traj_mark ROLLOUT_ENTRY(proofc_traj_mark)
#define proofc_traj_scan_blocks ROLLOUT_ENTRY(proofc_traj_scan_blocks)
#define proofc_traj_scan_sums ROLLOUT_ENTRY(proofc_traj_scan_sums)
#define proofc_traj_scan_add ROLLOUT_ENTRY(proofc_traj_scan_add)
#define proofc_traj_states ROLLOUT_ENTRY(proofc_traj_states)
#define proofc_traj_steps ROLLOUT_ENTRY(proofc_traj_steps)
#define proofc_traj_episodes ROLLOUT_ENTRY(proofc_traj_episodes)
#else
#define ROLLOUT_ENTRY(name) name
#define ROLLOUT_TEST(name) name
#endif
// GoogleTest's macros stringify and paste their arguments as given: this
// one expands ROLLOUT_TEST first.
#define ROLLOUT_GTEST(macro, ...) macro(__VA_ARGS__)
// step.cu (with engine.cu, memo.cu, advance.cu) renamed apart from the
// other emulation tests' copies; the test calls them by these names.
#define proofc_engine ROLLOUT_ENTRY(proofc_engine_rollouts)
#define proofc_engine_impl ROLLOUT_ENTRY(proofc_engine_impl_rollouts)
#define proofc_init ROLLOUT_ENTRY(proofc_init_rollouts)
#define proofc_advance ROLLOUT_ENTRY(proofc_advance_rollouts)
#define proofc_advance_engine ROLLOUT_ENTRY(proofc_advance_engine_rollouts)
#define proofc_finish ROLLOUT_ENTRY(proofc_finish_rollouts)
#define proofc_step_end ROLLOUT_ENTRY(proofc_step_end_rollouts)
#define proofc_list_slots ROLLOUT_ENTRY(proofc_list_slots_rollouts)
#define proofc_step ROLLOUT_ENTRY(proofc_step_rollouts)
#define proofc_memo ROLLOUT_ENTRY(proofc_memo_rollouts)
#include "Kernels/sample.cu"
#include "Kernels/step.cu"
#include "Kernels/trajectory.cu"
#undef proofc_engine
#undef proofc_engine_impl
#undef proofc_init
#undef proofc_advance
#undef proofc_advance_engine
#undef proofc_finish
#undef proofc_step_end
#undef proofc_list_slots
#undef proofc_step
#undef proofc_memo
#include "cuda/kernels/trajectory.cu"

#include "Targets/CUDA/Kernels/RolloutTestUtil.h"
#include "TestUtil.h"
#include "data/KnowledgeBase.h"
#include "host/Engine.h"
#include "host/HostBackend.h"
#include "host/HostPolicy.h"
#include "proofc/runtime/Rollouts.h"

#include <cmath>
#include <cstring>
#include <map>
#include <random>

#ifdef PROOFC_ROLLOUT_LISTED
namespace {
/// The grid each emulated node was last given from the device.
std::map<unsigned long long, unsigned> gNodeGrids;
} // namespace
extern "C" int cudaGraphKernelNodeSetGridDim(unsigned long long node,
                                             ProofcGridDim grid) {
  gNodeGrids[node] = grid.x;
  return 0;
}
#endif

namespace proofc::test {
namespace {

#ifndef PROOFC_ROLLOUT_LISTED
// The draw and the recording alone: compiled in one copy only.
struct Selected {
  int action = -1;
  float logp = 0.f;
};

Selected emulatedSelect(const std::vector<float> &logits, int k, float temp,
                        uint64_t seed, uint64_t episode, int step,
                        unsigned threads) {
  Selected out;
  emu::launch(1, threads, [&] {
    static proofc_sample::Scratch scratch;
    proofc_sample::selectSampled(scratch, logits.data(), k, temp, seed, episode,
                                 step, &out.action, &out.logp);
  });
  return out;
}

TEST(RolloutKernelsEmulation, SampledSelectDrawsTheHostRule) {
  std::mt19937_64 rng(27);
  std::normal_distribution<float> normal(0.f, 2.f);
  const float temperatures[] = {0.25f, 1.f, 3.7f};
  int differentActions = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int k = 1 + static_cast<int>(rng() % PROOFC_S);
    std::vector<float> logits(PROOFC_S, 0.f);
    for (int i = 0; i < k; ++i)
      // A third of the lists have many equal logits: only the noise
      // separates them.
      logits[i] = trial % 3 == 0 ? static_cast<float>(rng() % 3) : normal(rng);
    const float temp = temperatures[trial % 3];
    const uint64_t seed = rng(), episode = rng();
    const int step = static_cast<int>(rng() % 20);
    // The host backend's draw (Sampling.h's) and log-probability.
    const Action host = sampleAction(logits.data(), k, temp, seed, episode,
                                     static_cast<uint32_t>(step));
    const int expected = host.index;
    const Selected a = emulatedSelect(logits, k, temp, seed, episode, step, 32);
    const Selected b =
        emulatedSelect(logits, k, temp, seed, episode, step, 128);
    ASSERT_EQ(a.action, expected) << "trial " << trial << ", k " << k;
    ASSERT_EQ(b.action, expected) << "trial " << trial << ", k " << k;
    uint32_t bitsA, bitsB;
    std::memcpy(&bitsA, &a.logp, 4);
    std::memcpy(&bitsB, &b.logp, 4);
    EXPECT_EQ(bitsA, bitsB) << "trial " << trial << ": block sizes disagree";
    EXPECT_NEAR(a.logp, host.logp, 1e-6 * std::max(1.0, std::fabs(host.logp)))
        << "trial " << trial << ", k " << k;
    if (k > 1 && expected != 0)
      ++differentActions;
  }
  // The draws are not all the first entry (the noise is there at all).
  EXPECT_GT(differentActions, 100);
}

TEST(RolloutKernelsEmulation, SampledSelectFollowsTheTemperature) {
  // Near zero temperature the draw is the argmax of the logits; the
  // log-probability of a single entry is 0 with no draw.
  std::vector<float> logits(PROOFC_S, 0.f);
  for (int i = 0; i < 50; ++i)
    logits[i] = static_cast<float>((i * 37) % 50);
  int argmax = 0;
  for (int i = 1; i < 50; ++i)
    if (logits[i] > logits[argmax])
      argmax = i;
  for (uint64_t episode = 0; episode < 20; ++episode)
    EXPECT_EQ(emulatedSelect(logits, 50, 1e-3f, 9, episode, 3, 32).action,
              argmax);
  const Selected one = emulatedSelect(logits, 1, 1.f, 9, 0, 0, 32);
  EXPECT_EQ(one.action, 0);
  EXPECT_EQ(one.logp, 0.f);
}

TEST(RolloutKernelsEmulation, SampledSelectPoisonsNonFiniteLogits) {
  std::vector<float> logits(PROOFC_S, 0.5f);
  logits[7] = NAN;
  const Selected s = emulatedSelect(logits, 20, 1.f, 1, 2, 3, 32);
  EXPECT_TRUE(std::isnan(s.logp));
  EXPECT_GE(s.action, 0);
  EXPECT_LT(s.action, 20);
}

#endif // PROOFC_ROLLOUT_LISTED

/// The device buffers of one rollout's recording and finishing.
struct EmulatedTrajectories {
  int N, D, S, W, entries;
  std::vector<int> table, overflow{0}, denseState, denseDerived, denseCount,
      denseAction;
  std::vector<float> denseLogp;

  EmulatedTrajectories(int n, int d, int entryCount)
      : N(n), D(d), S(PROOFC_S), W(3 * PROOFC_A), entries(entryCount),
        table(static_cast<size_t>(entryCount) *
              proofc_abi::trajectoryEntryWords(PROOFC_A)),
        denseState(n * d, -7), denseDerived(static_cast<size_t>(n) * d * S, -7),
        denseCount(n * d, -7), denseAction(n * d, -7), denseLogp(n * d, -7.f) {}

  proofc_traj::Recorder recorder() {
    return {table.data(),      entries,
            overflow.data(),   D,
            denseState.data(), denseDerived.data(),
            denseCount.data(), denseAction.data(),
            denseLogp.data()};
  }

  void record(const HostStep &s, int q, int t, unsigned threads) {
    const proofc_traj::Recorder rec = recorder();
    emu::launch(1, threads, [&] {
      proofc_traj::recordStep(rec,
                              reinterpret_cast<const int *>(s.parent.data()),
                              reinterpret_cast<const int *>(s.derived.data()),
                              s.count, s.action, s.logp, q, t);
    });
  }

  /// Exclusive scan of data in place (the runtime's three launches, small
  /// blocks so that several chunks and the carry between them are used);
  /// returns the total.
  static int scan(std::vector<int> &data) {
    const unsigned threads = 8;
    const int chunk = threads * proofc_traj_finish::kScanPerThread;
    const long long n = static_cast<long long>(data.size());
    const unsigned blocks = static_cast<unsigned>((n + chunk - 1) / chunk);
    std::vector<int> sums(blocks, 0);
    int total = -1;
    emu::launch(blocks, threads,
                [&] { proofc_traj_scan_blocks(data.data(), n, sums.data()); });
    emu::launch(1, 4, [&] {
      proofc_traj_scan_sums(sums.data(), static_cast<int>(blocks), &total);
    });
    emu::launch(3, 16, [&] {
      proofc_traj_scan_add(data.data(), n, sums.data(), chunk);
    });
    return total;
  }

  /// The finishing pass's tensors (status and depth are the caller's,
  /// left empty) and its counts.
  struct Result : RolloutTensors {
    int U = 0, T = 0, firstNonFinite = 0x7FFFFFFF;
  };

  Result finish(const std::vector<int> &depth, int K = kEpisodesPerTriple,
                std::vector<uint8_t> positiveIn = {}) {
    Result r;
    const int entryWords = proofc_abi::trajectoryEntryWords(PROOFC_A);
    std::vector<int> mark(static_cast<size_t>(N) * D * (S + 1), 0);
    emu::launch(3, 16, [&] {
      proofc_traj_mark(table.data(), entries, entryWords, mark.data());
    });
    r.U = scan(mark);
    std::vector<int> entryId(entries, -7);
    r.states.assign(static_cast<size_t>(r.U) * W, -7);
    emu::launch(2, 32, [&] {
      proofc_traj_states(table.data(), entries, entryWords, W, mark.data(),
                         entryId.data(), r.states.data());
    });
    std::vector<int> firstStep = depth;
    r.T = scan(firstStep);
    r.stepEpisode.assign(r.T, -7);
    r.stepState.assign(r.T, -7);
    r.stepDerived.assign(static_cast<size_t>(r.T) * S, -7);
    r.stepCount.assign(r.T, -7);
    r.stepAction.assign(r.T, -7);
    r.stepLogp.assign(r.T, -7.f);
    emu::launch(5, 16, [&] {
      proofc_traj_steps(
          N, D, S, depth.data(), firstStep.data(), entryId.data(),
          denseState.data(), denseDerived.data(), denseCount.data(),
          denseAction.data(), denseLogp.data(), r.stepEpisode.data(),
          r.stepState.data(), r.stepDerived.data(), r.stepCount.data(),
          r.stepAction.data(), r.stepLogp.data(), &r.firstNonFinite);
    });
    r.triple.assign(N, -7);
    r.positive.assign(N, 7);
    r.logp.assign(N, -7.f);
    if (positiveIn.empty()) // the layout tests'
      positiveIn = layoutPositives(N);
    emu::launch(2, 8, [&] {
      proofc_traj_episodes(N, K, depth.data(), firstStep.data(),
                           r.stepLogp.data(), positiveIn.data(),
                           r.triple.data(), r.positive.data(), r.logp.data());
    });
    return r;
  }
};

#ifndef PROOFC_ROLLOUT_LISTED
TEST(RolloutKernelsEmulation, TrajectoriesAreTheHostLayoutInAnyOrder) {
  Dataset ds = loadDataset(dataDir("countries_s1"));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape; // V10: A = 6, S = 120, D = 20
  const int N = 24;
  const auto episodes = hostEpisodes(ds, kb, shape, N, 5);

  const ExpectedLayout x(episodes, shape);
  ASSERT_LT(static_cast<size_t>(x.numStates()), x.occurrences)
      << "no state repeats: a weak test";

  // The device: every step recorded, in an order unlike the episodes'
  // (slots run at their own pace), by blocks of two sizes.
  std::vector<std::pair<int, int>> rows;
  for (int q = 0; q < N; ++q)
    for (int t = 0; t < static_cast<int>(episodes[q].size()); ++t)
      rows.emplace_back(q, t);
  std::shuffle(rows.begin(), rows.end(), std::mt19937_64(11));
  int entries = 1;
  while (entries < 2 * x.numStates())
    entries *= 2;
  EmulatedTrajectories dev(N, shape.D, entries);
  for (size_t i = 0; i < rows.size(); ++i)
    dev.record(episodes[rows[i].first][rows[i].second], rows[i].first,
               rows[i].second, i % 2 ? 32 : 8);
  EXPECT_EQ(dev.overflow[0], 0);
  const EmulatedTrajectories::Result r = dev.finish(x.depth);

  EXPECT_EQ(r.U, x.numStates());
  EXPECT_EQ(r.T, static_cast<int>(x.stepEpisode.size()));
  EXPECT_EQ(r.states, x.states);
  EXPECT_EQ(r.stepEpisode, x.stepEpisode);
  EXPECT_EQ(r.stepState, x.stepState);
  EXPECT_EQ(r.stepDerived, x.stepDerived);
  EXPECT_EQ(r.stepCount, x.stepCount);
  EXPECT_EQ(r.stepAction, x.stepAction);
  EXPECT_EQ(r.stepLogp, x.stepLogp);
  EXPECT_EQ(r.firstNonFinite, 0x7FFFFFFF);
  EXPECT_EQ(r.triple, x.triple);
  EXPECT_EQ(r.positive, x.positive);
  EXPECT_EQ(r.logp, x.logp);
}

TEST(RolloutKernelsEmulation, ANonFiniteStepIsFound) {
  Dataset ds = loadDataset(dataDir("countries_s1"));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape;
  auto episodes = hostEpisodes(ds, kb, shape, 4, 7);
  episodes[2].back().logp = NAN;
  episodes[3].front().logp = NAN;
  EmulatedTrajectories dev(4, shape.D, 1 << 12);
  std::vector<int> depth;
  for (int q = 0; q < 4; ++q) {
    depth.push_back(static_cast<int>(episodes[q].size()));
    for (int t = 0; t < depth.back(); ++t)
      dev.record(episodes[q][t], q, t, 32);
  }
  // The first in step order: episode 2's last step, before episode 3's.
  EXPECT_EQ(dev.finish(depth).firstNonFinite,
            depth[0] + depth[1] + depth[2] - 1);
}

TEST(RolloutKernelsEmulation, AFullTableSaysSo) {
  Dataset ds = loadDataset(dataDir("countries_s1"));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape;
  const auto episodes = hostEpisodes(ds, kb, shape, 4, 6);
  EmulatedTrajectories dev(4, shape.D, 8);
  for (int q = 0; q < 4; ++q)
    for (int t = 0; t < static_cast<int>(episodes[q].size()); ++t)
      dev.record(episodes[q][t], q, t, 32);
  EXPECT_EQ(dev.overflow[0], 1);
}

TEST(RolloutKernelsEmulation, ALongWalkSaysTheTableIsFullAndLaterInsertsStop) {
  Dataset ds = loadDataset(dataDir("countries_s1"));
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape;
  const auto episodes = hostEpisodes(ds, kb, shape, 1, 6);
  ASSERT_FALSE(episodes[0].empty());
  // A table larger than kMaxProbes whose every entry holds some other
  // state: the first insert walks kMaxProbes + 1 entries and gives up
  // (before the bound it walked all 4096).
  const int entries = 4096;
  static_assert(proofc_traj::kMaxProbes < 4096, "the walk must be bounded");
  EmulatedTrajectories dev(1, shape.D, entries);
  const int words = proofc_abi::trajectoryEntryWords(PROOFC_A);
  for (int e = 0; e < entries; ++e) {
    dev.table[static_cast<size_t>(e) * words] = 0x7FFFFFFF; // no real hash
    dev.table[static_cast<size_t>(e) * words + 1] = 1;
  }
  const std::vector<int> before = dev.table;
  dev.record(episodes[0][0], 0, 0, 32);
  EXPECT_EQ(dev.overflow[0], 1);
  EXPECT_EQ(dev.denseState[0], -1);
  for (int i = 0; i < episodes[0][0].count; ++i)
    EXPECT_EQ(dev.denseDerived[i], -1) << i;
  // Once the flag is set an insert returns at once, even into an empty
  // table: nothing is claimed.
  EmulatedTrajectories flagged(1, shape.D, entries);
  flagged.overflow[0] = 1;
  flagged.record(episodes[0][0], 0, 0, 32);
  EXPECT_EQ(flagged.denseState[0], -1);
  EXPECT_EQ(flagged.table, std::vector<int>(flagged.table.size(), 0));
  EXPECT_EQ(dev.table, before);
}

#endif // PROOFC_ROLLOUT_LISTED

/// The knowledge base's Atom arrays as the kernels' int32 words.
template <typename V> const int *ints(const V &v) {
  return reinterpret_cast<const int *>(v.data());
}

/// The CUDA path of a rollouts call, emulated: step.cu compiled with
/// PROOFC_ROLLOUT (rollout.cu), the fused step schedule with the memo off.
/// The pool is the request's triples, each K times (pool position =
/// episode here); setup runs init and the engine, then each step the
/// policy's logits (HostPolicy) and greedy choice (spec §4, as the
/// generated kernel's) go to the logits rows and action[], and
/// proofc_advance_engine draws (sampled), records, advances and derives.
/// Then the finishing pass. Compiled with the list (PROOFC_ENGINE_LIST),
/// the advance-engine has a node record, as the runtime binds "node:" for
/// a bundle from B = 8192, and each step launches the grid its last launch
/// gave the node: the active slots, listed, once some have finished.
struct EmulatedRollout {
  EmulatedTrajectories::Result r;
  std::vector<int> status, depth;
  int listedSteps = 0; ///< advance-engine launches of fewer than B blocks

  /// The call's tensors, as the host backend's are compared.
  RolloutTensors tensors() const {
    RolloutTensors t = r; // the finishing pass's, then the outcomes'
    t.status = status;
    t.depth = depth;
    return t;
  }
};

EmulatedRollout emulatedRollout(const ProgramSpec &program, const Dataset &ds,
                                const TensorMap &weights,
                                const RolloutRequest &rq) {
  const ShapeParams &shape = program.shape;
  const int A = shape.A, S = shape.S, D = shape.D, B = shape.B, W = 3 * A;
  const int K = rq.episodesPerTriple;
  const int E = static_cast<int>(rq.triples.size()) * K;
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  HostPolicy policy(program, weights, kb.numEntities, kb.numRelations);
  std::vector<int> pool, episodeOf;
  for (int e = 0; e < E; ++e) {
    const Triple &c = rq.triples[e / K];
    pool.insert(pool.end(), {c.h, c.r, c.t});
    episodeOf.push_back(e);
  }
  std::vector<int> state(B * W), slotCand(B), depth(B), derived(B * S * W),
      count(B), action(B), outStatus(E, -1), outDepth(E, -1), outActions(1),
      memo(4), memoClaims(B), counters(2, 0),
      policyGrid(proofc_abi::kPolicyGridWords, 0),
      policyList(B * proofc_abi::kPolicyEntryWords),
      engineGrid(proofc_abi::kEngineGridWords, 0), engineList(2 * B);
  std::vector<float> logp(B), actionLogp(B), outLogp(E), logits(B * S);
  int nextCand = 0, engineFlag = 0, loopFlag = 0;
  // The advance-engine's node (none without the list: every launch B).
  proofc_abi::GraphNodeRecord node{0x90de, static_cast<unsigned>(B), 0};
  const unsigned long long nextEngine =
      PROOFC_ENGINE_LIST ? reinterpret_cast<uintptr_t>(&node) : 0;
#ifdef PROOFC_ROLLOUT_LISTED
  gNodeGrids.clear(); // the handle repeats from run to run
#endif
  EmulatedTrajectories dev(E, D, 1 << 14);
  proofc_abi::RolloutParams &p = proofc_rollout_params;
  p.seed = rq.seed;
  p.episodeBase = rq.episodeBase;
  p.episodeOf = reinterpret_cast<uintptr_t>(episodeOf.data());
  p.logits = reinterpret_cast<uintptr_t>(logits.data());
  const proofc_traj::Recorder rec = dev.recorder();
  p.table = reinterpret_cast<uintptr_t>(rec.table);
  p.overflow = reinterpret_cast<uintptr_t>(rec.overflow);
  p.stepState = reinterpret_cast<uintptr_t>(rec.stepState);
  p.stepDerived = reinterpret_cast<uintptr_t>(rec.stepDerived);
  p.stepCount = reinterpret_cast<uintptr_t>(rec.stepCount);
  p.stepAction = reinterpret_cast<uintptr_t>(rec.stepAction);
  p.stepLogp = reinterpret_cast<uintptr_t>(rec.stepLogp);
  p.temperature = rq.mode == SelectMode::Sampled ? rq.temperature : 0.f;
  p.entries = rec.entries;
  p.D = D;

  EmulatedRollout out;
  const int E32 = kb.numEntities, R = kb.numRelations;
  emu::launch(1, 32, [&] {
    ROLLOUT_ENTRY(proofc_init_rollouts)(
        pool.data(), E, B, state.data(), slotCand.data(), depth.data(),
        logp.data(), &nextCand, &engineFlag, &loopFlag, 0, 0, 1,
        policyGrid.data(), policyList.data(), 0, engineGrid.data(),
        engineList.data(), nextEngine);
  });
  emu::launch(B, PROOFC_ENGINE_THREADS, [&] {
    ROLLOUT_ENTRY(proofc_engine_rollouts)(
        &loopFlag, state.data(), slotCand.data(), pool.data(), ints(kb.facts),
        kb.psOffsets.data(), kb.poFacts.data(), kb.poOffsets.data(),
        kb.predOffsets.data(), ints(kb.ruleHeads), kb.ruleBodyOffsets.data(),
        ints(kb.ruleBody), kb.ruleNumVars.data(), kb.rulePredOffsets.data(),
        kb.ruleIdsByPred.data(), E32, R, derived.data(), count.data());
  });
  std::vector<float> parent(policy.width()),
      children(static_cast<size_t>(S) * policy.width()),
      scratch(policy.scratchSize());
  for (int steps = 0; loopFlag; ++steps) {
    EXPECT_LE(steps, E * D) << "the loop does not end";
    if (steps > E * D)
      break;
    // The policy kernel: logits rows and the greedy choice.
    for (int b = 0; b < B; ++b) {
      if (slotCand[b] < 0)
        continue;
      if (count[b] >= 2) {
        const Atom *st = reinterpret_cast<const Atom *>(state.data() + b * W);
        const Atom *ch =
            reinterpret_cast<const Atom *>(derived.data() + b * S * W);
        policy.encode(st, A, parent.data(), scratch.data());
        policy.encodeBatch(ch, count[b], A, children.data(), scratch.data());
        policy.logits(parent.data(), children.data(), count[b],
                      logits.data() + b * S);
      }
      const Action a = selectAction(logits.data() + b * S, count[b]);
      action[b] = a.index;
      actionLogp[b] = static_cast<float>(a.logp);
    }
    const unsigned grid = node.grid;
    out.listedSteps += grid < static_cast<unsigned>(B);
    emu::launch(grid, PROOFC_ENGINE_THREADS, [&] {
      ROLLOUT_ENTRY(proofc_advance_engine_rollouts)(
          &loopFlag, pool.data(), E, D, R, action.data(), actionLogp.data(),
          state.data(), slotCand.data(), depth.data(), logp.data(), &nextCand,
          outStatus.data(), outDepth.data(), outLogp.data(), outActions.data(),
          0, ints(kb.facts), kb.psOffsets.data(), kb.poFacts.data(),
          kb.poOffsets.data(), kb.predOffsets.data(), ints(kb.ruleHeads),
          kb.ruleBodyOffsets.data(), ints(kb.ruleBody), kb.ruleNumVars.data(),
          kb.rulePredOffsets.data(), kb.ruleIdsByPred.data(), E32,
          derived.data(), count.data(), memo.data(), memoClaims.data(), 0,
          counters.data(), &engineFlag, &loopFlag, 0, 0, S, policyGrid.data(),
          policyList.data(), 0, B, engineGrid.data(), engineList.data(),
          nextEngine);
    });
#ifdef PROOFC_ROLLOUT_LISTED
    // The device's resize reached the node (only when its grid changed).
    if (gNodeGrids.count(node.node))
      EXPECT_EQ(gNodeGrids[node.node], node.grid) << "step " << steps;
#endif
  }
  EXPECT_EQ(dev.overflow[0], 0);
  out.r = dev.finish(outDepth, K, rq.positive);
  out.status = outStatus;
  out.depth = outDepth;
  return out;
}

class ROLLOUT_TEST(CudaPathRollouts) : public ::testing::TestWithParam<bool> {};

ROLLOUT_GTEST(TEST_P, ROLLOUT_TEST(CudaPathRollouts), EqualTheHostBackends) {
  const bool sampled = GetParam();
  Dataset ds = loadDataset(dataDir("nations"));
  const TensorMap weights = readSafetensors(weightsFile("nations"));
  ProgramSpec program = v10Program();
  program.shape.B = 16;
  RolloutRequest rq;
  // Train triples and corruptions of them (another tail), alternately.
  for (size_t i = 0; i < 32; ++i) {
    Triple c = ds.train[i * 13 % ds.train.size()];
    if (i % 2)
      c.t = static_cast<int32_t>((c.t + 7 * i) % ds.numEntities());
    rq.triples.push_back(c);
    rq.positive.push_back(static_cast<uint8_t>(i % 2 == 0));
  }
  rq.episodesPerTriple = 3;
  rq.seed = 0x1234567890ull;
  rq.episodeBase = 77;
  rq.mode = sampled ? SelectMode::Sampled : SelectMode::Greedy;
  // Hot enough that the draws, not the logits alone, decide most steps.
  rq.temperature = 8.f;

  HostBackend host(HostBackendOptions{1});
  const Trajectories h =
      host.rollouts(RolloutInputs{program, ds, weights, rq, false});
  const EmulatedRollout d = emulatedRollout(program, ds, weights, rq);

  const RolloutTensors got = d.tensors();
  // With the list, its path ran: steps after the pool emptied launched
  // only the slots still active.
  if (PROOFC_ENGINE_LIST)
    EXPECT_GT(d.listedSteps, 5);
  EXPECT_EQ(d.r.U, h.numStates);
  EXPECT_EQ(d.r.T, h.steps);
  expectSameRollouts(rolloutTensors(h), got, 1e-5, 1e-4);
  // Something was learned from: several steps with a choice, and the
  // sampled episodes are mostly not the greedy ones.
  int choices = 0;
  for (int32_t k : got.stepCount)
    choices += k > 1;
  EXPECT_GT(choices, 40);
  if (sampled) {
    RolloutRequest greedy = rq;
    greedy.mode = SelectMode::Greedy;
    const Trajectories g =
        host.rollouts(RolloutInputs{program, ds, weights, greedy, false});
    EXPECT_GT(differingEpisodes(got, rolloutTensors(g)), 10);
  }
}

ROLLOUT_GTEST(INSTANTIATE_TEST_SUITE_P, Modes, ROLLOUT_TEST(CudaPathRollouts),
              ::testing::Bool(),
              [](const ::testing::TestParamInfo<bool> &info) {
                return info.param ? "Sampled" : "Greedy";
              });

} // namespace
} // namespace proofc::test
