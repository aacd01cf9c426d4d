//===- EmulatedPlanTest.cpp - The reference plan, run on the CPU ----------===//
//
// The whole GPU pipeline minus the driver: the reference bundle
// (TestBundle.h) is bound with PlanBinding exactly as the CUDA backend binds
// it, and its schedule is executed with the kernel templates (and the policy
// fixture) compiled as C++ through the CUDA shim — conds evaluated on the
// host, conditional handles 0. Outcomes must match the host backend (spec §7;
// on these small runs: every status and depth).
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#include <cmath>

#define PROOFC_A 6
#define PROOFC_S 120
#define PROOFC_DIM 64
#define PROOFC_ENGINE_THREADS 32
// The advance-engine lists its slots for its own next launch
// (kernel_abi.h's kEngineListOption), as proofc compile builds it from
// B = 8192: TestBundle.h's fused step names the node.
#define PROOFC_ENGINE_LIST 1
// The fused step's advance as auto compiles it below B = 16384: a slot may
// wait two steps for a step another slot computes (memo-max-waits).
// EmulatedPlanNoWaitsTest.cpp compiles this file again with
// PROOFC_PLAN_NO_WAITS, the advance as auto compiles it from B = 16384 (no
// waits): every test once more, its kernels, the policy fixture and the
// conditional hook renamed apart from this copy (PLAN_ENTRY) and its test
// suites named with NoWaits (PLAN_TEST). EmulatedPlanHandoffTest.cpp
// compiles it with PROOFC_PLAN_HANDOFF: the advance-engine with the tail
// hand-off (PROOFC_TAIL_HANDOFF), its loop's end checked against the
// contract the tail kernel relies on and the tail emulated after it
// (EmulatedPlan::runTail); only the fused cases of EmulatedPlanVsHost.
// EmulatedPlanWalkCapTest.cpp compiles it with PROOFC_PLAN_WALK_CAP: the
// waits of auto, and every memo walk paused after one hit
// (PROOFC_MEMO_WALK_HITS, advance.cu; 8 as built), its suites named with
// WalkCap.
#if defined(PROOFC_PLAN_NO_WAITS) || defined(PROOFC_PLAN_HANDOFF) ||           \
    defined(PROOFC_PLAN_WALK_CAP)
#define PLAN_RENAMED 1
#endif
#ifdef PROOFC_PLAN_HANDOFF
#define PROOFC_MEMO_WAITS 2
#define PROOFC_TAIL_HANDOFF 15
#define PLAN_ENTRY(name) name##_handoff
#define PLAN_TEST(name) name##Handoff
#elif defined(PROOFC_PLAN_NO_WAITS)
#define PROOFC_MEMO_WAITS 0
#define PLAN_ENTRY(name) name##_nowaits
#define PLAN_TEST(name) name##NoWaits
#elif defined(PROOFC_PLAN_WALK_CAP)
#define PROOFC_MEMO_WAITS 2
#define PROOFC_MEMO_WALK_HITS 1
#define PLAN_ENTRY(name) name##_walkcap
#define PLAN_TEST(name) name##WalkCap
#endif
#ifdef PLAN_RENAMED
#define cudaGraphSetConditional PLAN_ENTRY(cudaGraphSetConditional)
#define cudaGraphKernelNodeSetGridDim PLAN_ENTRY(cudaGraphKernelNodeSetGridDim)
// step.cu's inline setNodeGrid calls the hook: renamed with it, or the link
// would keep one copy of it for both files (one definition rule).
#define setNodeGrid PLAN_ENTRY(setNodeGrid)
#define proofc_step PLAN_ENTRY(proofc_step)
#define proofc_memo PLAN_ENTRY(proofc_memo)
#define proofc_policy_fixture PLAN_ENTRY(proofc_policy_fixture)
#else
#define PROOFC_MEMO_WAITS 2
#define PLAN_ENTRY(name) name##_plan
#define PLAN_TEST(name) name
#endif
// step.cu includes engine.cu; renamed apart from the engine tests' copy.
// GoogleTest's macros stringify and paste their arguments as given: this
// one expands PLAN_TEST first.
#define PLAN_GTEST(macro, ...) macro(__VA_ARGS__)
#define proofc_engine PLAN_ENTRY(proofc_engine)
#define proofc_engine_impl PLAN_ENTRY(proofc_engine_impl)
#define proofc_init PLAN_ENTRY(proofc_init)
#define proofc_advance PLAN_ENTRY(proofc_advance)
#define proofc_advance_engine PLAN_ENTRY(proofc_advance_engine)
#define proofc_finish PLAN_ENTRY(proofc_finish)
#define proofc_step_end PLAN_ENTRY(proofc_step_end)
#define proofc_list_slots PLAN_ENTRY(proofc_list_slots)
#define proofc_policy PLAN_ENTRY(proofc_policy)
#include "Kernels/step.cu"
#include "runtime/cuda/fixtures/policy.cu"
#undef proofc_engine
#undef proofc_engine_impl
#undef proofc_init
#undef proofc_advance
#undef proofc_advance_engine
#undef proofc_finish
#undef proofc_step_end
#undef proofc_list_slots
#undef proofc_policy
#ifdef PLAN_RENAMED
#undef proofc_step
#undef proofc_memo
#undef proofc_policy_fixture
#endif

#include "EmulatedLaunch.h"
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "host/HostBackend.h"
#include "outputs/ProofFormats.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/TestBundle.h"

#include <algorithm>
#include <functional>
#include <map>
#include <type_traits>
#include <utility>

namespace {
std::map<unsigned long long, unsigned> gConditionals;
/// The grid each emulated graph node was last given from the device.
std::map<unsigned long long, unsigned> gGridDims;
/// The first node handle a "node:<launch>" argument's record names here
/// (EmulatedPlan::record: one a launch, as the native graph's
/// device-updatable node of that launch).
constexpr unsigned long long kEmulatedNode = 0x90de;
} // namespace

extern "C" void cudaGraphSetConditional(unsigned long long handle,
                                        unsigned int value) {
  gConditionals[handle] = value;
}
extern "C" int cudaGraphKernelNodeSetGridDim(unsigned long long node,
                                             ProofcGridDim grid) {
  gGridDims[node] = grid.x;
  return 0;
}
#ifdef PLAN_RENAMED
#undef cudaGraphSetConditional
#undef cudaGraphKernelNodeSetGridDim
#endif

namespace proofc::test {
namespace {

/// Host memory for every buffer of a binding, and launches by entry name.
class EmulatedPlan {
public:
  EmulatedPlan(const Bundle &bundle, const PlanBinding &binding)
      : bundle_(bundle), binding_(binding) {
    // The nodes' grids are this plan's records' (the handles repeat).
    gGridDims.clear();
    for (const BoundBuffer &b : binding.buffers()) {
      memory_.emplace_back(b.bytes / 4, 0u);
      std::copy(b.data.begin(), b.data.end(), memory_.back().begin());
    }
  }

  int32_t flag(const std::string &buffer) const {
    return static_cast<int32_t>(memory_[binding_.bufferIndex(buffer)][0]);
  }

  template <typename T> std::vector<T> read(int32_t buffer) const {
    std::vector<T> out(static_cast<size_t>(binding_.symbols().at("N")));
    std::memcpy(out.data(), memory_[buffer].data(), out.size() * 4);
    return out;
  }

  void runNodes(const std::vector<ScheduleNode> &nodes) {
    for (const ScheduleNode &node : nodes) {
      if (!node.launch.empty())
        runLaunch(binding_.launch(node.launch));
      else if (flag(node.flag))
        runNodes(node.body);
    }
  }

  /// The setup launches, then one step per call while the loop flag is set.
  void setup() { runNodes(bundle_.plan.schedule.setup); }
  bool step() {
    if (!flag(bundle_.plan.schedule.loopFlag))
      return false;
    runNodes(bundle_.plan.schedule.step);
    return true;
  }
  /// Word i of a buffer, as the host's cuMemcpyHtoDAsync would write it.
  void poke(int32_t buffer, size_t i, uint32_t value) {
    memory_[buffer][i] = value;
  }
  template <typename T> std::vector<T> readAll(int32_t buffer) const {
    std::vector<T> out(memory_[buffer].size());
    std::memcpy(out.data(), memory_[buffer].data(), out.size() * 4);
    return out;
  }
  /// Every candidate's outcome as the run wrote it (the binding's pool
  /// order undone), as the runtime's readback gives it.
  std::vector<Outcome> outcomes() const {
    return binding_.outcomes(read<int32_t>(binding_.outStatus()),
                             read<int32_t>(binding_.outDepth()),
                             read<float>(binding_.outLogp()));
  }

  /// The advance-engine launches checkPolicyGrid has seen, and those of
  /// them that listed the next step's tiles (a node named).
  int64_t policyGridsChecked() const { return policyGridsChecked_; }
  /// The advance-engine launches checkEngineGrid has seen, and those of
  /// them that listed the next step's slots (fewer than B active) and that
  /// ran at a listed grid.
  int64_t engineGridsChecked() const { return engineGridsChecked_; }
  int64_t engineListsChecked() const { return engineListsChecked_; }
  int64_t listedEngineLaunches() const { return listedEngineLaunches_; }
  int64_t listedGridsChecked() const { return listedGridsChecked_; }
  /// The listed grids in which some slot listed several parts.
  int64_t multiPartListsChecked() const { return multiPartListsChecked_; }

  /// The advance-engine launches that were the tail hand-off's step
  /// (checkHandoff), and the tail's rounds after it (runTail).
  int64_t handoffs() const { return handoffs_; }
  int64_t tailRounds() const { return tailRounds_; }
#ifdef PROOFC_PLAN_HANDOFF
  /// Before the hand-off's step: claim the entry of the step one slot is
  /// about to take, as another slot computing it would, and never publish
  /// it; the slot whose step it is (or -1: none could be claimed).
  void claimAStepAtTheHandoff() { claimAtHandoff_ = true; }
  int32_t claimedSlot() const { return claimedSlot_; }
#endif

  int64_t run() {
    runNodes(bundle_.plan.schedule.setup);
    // A run ends within this many steps: each candidate takes at most D
    // steps, each computed step waits at most PROOFC_MEMO_WAITS and each
    // memo hit pauses at most once (advance.cu). A kernel that stops
    // making progress (a pause that never resumes its walk) fails here
    // instead of looping until ctest's timeout.
    const int64_t bound = binding_.symbols().at("N") *
                              binding_.symbols().at("D") *
                              (2 + PROOFC_MEMO_WAITS) +
                          2;
    int64_t steps = 0;
    while (flag(bundle_.plan.schedule.loopFlag)) {
      runNodes(bundle_.plan.schedule.step);
      if (++steps > bound) {
        ADD_FAILURE() << "the plan ran " << steps
                      << " steps, more than any run can take";
        break;
      }
    }
#ifdef PROOFC_PLAN_HANDOFF
    runTail();
#endif
    return steps;
  }

private:
  /// The record of launch `name`'s node (made at the first use, with the
  /// plan's grid, as the runtime's bindNodeArgs does): in the emulation a
  /// launch's next node is itself, run again at the next step.
  proofc_abi::GraphNodeRecord &record(const std::string &name) {
    auto it = records_.find(name);
    if (it == records_.end())
      it = records_
               .emplace(
                   name,
                   proofc_abi::GraphNodeRecord{kEmulatedNode + records_.size(),
                                               binding_.launch(name).grid, 0})
               .first;
    return it->second;
  }

  /// That the node of launch `name` (none: nothing to check) now launches
  /// `blocks`: its record, and the grid the device last gave it.
  void expectNodeGrid(const std::string &name, unsigned blocks) {
    if (name.empty())
      return;
    const proofc_abi::GraphNodeRecord &r = record(name);
    EXPECT_EQ(r.grid, blocks);
    if (gGridDims.count(r.node))
      EXPECT_EQ(gGridDims[r.node], blocks);
  }

  /// Launch l's argument `name` (kernel_abi.h's list of its entry).
  const BoundArg &named(const BoundLaunch &l, const char *name) const {
    const proofc_abi::KernelSignature *sig =
        proofc_abi::findKernel(l.launch->entry.c_str());
    for (int i = 0; sig && i < sig->numArgs; ++i)
      if (std::string(sig->names[i]) == name)
        return l.args.at(static_cast<size_t>(i));
    ADD_FAILURE() << l.launch->entry << " has no argument " << name;
    return l.args.at(0);
  }
  /// Launch l's buffer argument `name`, to write (the emulated tail's).
  template <typename T = int>
  T *buffer(const BoundLaunch &l, const char *name) {
    return reinterpret_cast<T *>(memory_[named(l, name).buffer].data());
  }
  const int32_t *words(const BoundLaunch &l, const char *name) const {
    return reinterpret_cast<const int32_t *>(
        memory_[named(l, name).buffer].data());
  }

  /// After init or an advance-engine launch: the next step policy's grid
  /// (kernel_abi.h's PolicyGridWord). Init: every slot, B x P blocks. The
  /// advance-engine with a node: an entry for each part the children of
  /// each slot with children fill, each once, in any order, with the
  /// slot's children, and a block an entry; without one, every slot. Its
  /// count re-zeroed; no slot activated (`before`: slotCand before the
  /// launch).
  void checkPolicyGrid(const BoundLaunch &l, const std::vector<int32_t> &before,
                       bool handoff) {
    const bool init = l.launch->entry == "proofc_init";
    const int32_t *grid = words(l, "policyGrid");
    const int32_t *list = words(l, "policyList");
    const int32_t *cand = words(l, "slotCand");
    const bool hasNode = !named(l, "nextPolicy").node.empty();
    EXPECT_EQ(grid[proofc_abi::kPolicyListCount], 0);
    // The node's grid, when one is named: its record's, which every
    // resize (the stub's) left equal to the node's.
    auto expectGrid = [&](unsigned blocks) {
      expectNodeGrid(named(l, "nextPolicy").node, blocks);
    };
    if (init) {
      const int B = named(l, "B").i32, P = named(l, "policyParts").i32;
      EXPECT_EQ(grid[proofc_abi::kPolicyListed], -1);
      expectGrid(static_cast<unsigned>(B * P));
      return;
    }
    const int B = named(l, "B").i32;
    const int32_t *count = words(l, "count");
    const int childrenPerPart = named(l, "childrenPerPart").i32;
    // (every-slot block, children) of each part with children.
    std::vector<std::pair<int32_t, int32_t>> expected;
    int maxParts = 0;
    for (int b = 0; b < B; ++b) {
      if (before.at(static_cast<size_t>(b)) < 0)
        EXPECT_LT(cand[b], 0) << "slot " << b << " became active";
      if (cand[b] < 0 || count[b] == 0) {
        EXPECT_EQ(count[b], 0) << "slot " << b << " has children, no candidate";
        continue;
      }
      const int parts = proofc_abi::policyParts(count[b], childrenPerPart);
      maxParts = std::max(maxParts, parts);
      for (int part = 0; part < parts; ++part)
        expected.emplace_back(b + part * B, count[b]);
    }
    if (hasNode && handoff) {
      // The hand-off's step: the loop's no-op launches run one block.
      EXPECT_EQ(grid[proofc_abi::kPolicyListed], 0);
      expectGrid(1u);
    } else if (hasNode) {
      const int n = static_cast<int>(expected.size());
      EXPECT_EQ(grid[proofc_abi::kPolicyListed], n);
      std::vector<std::pair<int32_t, int32_t>> listed;
      for (int i = 0; i < n; ++i) {
        const int32_t *entry = list + i * proofc_abi::kPolicyEntryWords;
        listed.emplace_back(entry[proofc_abi::kPolicyEntryBlock],
                            entry[proofc_abi::kPolicyEntryCount]);
      }
      std::sort(listed.begin(), listed.end());
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(listed, expected);
      expectGrid(static_cast<unsigned>(proofc_abi::listedBlocks(n)));
      ++listedGridsChecked_;
      if (maxParts > 1)
        ++multiPartListsChecked_;
    } else {
      EXPECT_EQ(grid[proofc_abi::kPolicyListed], -1);
    }
    ++policyGridsChecked_;
  }

  /// After init or an advance-engine launch: the next advance-engine's
  /// grid (kernel_abi.h's EngineGridWord). Init: every slot, B blocks. The
  /// advance-engine with a node: with fewer than B slots active, each
  /// active slot listed once in the half the next step reads, and a block
  /// each; with every slot active (or without a node), every slot.
  void checkEngineGrid(const BoundLaunch &l, int32_t readBefore, bool handoff) {
    const int32_t *grid = words(l, "engineGrid");
    const int32_t *list = words(l, "engineList");
    const int32_t *cand = words(l, "slotCand");
    const int B = named(l, "B").i32;
    const std::string &node = named(l, "nextEngine").node;
    auto expectGrid = [&](unsigned blocks) { expectNodeGrid(node, blocks); };
    if (l.launch->entry == "proofc_init") {
      EXPECT_EQ(grid[proofc_abi::kEngineListed], -1);
      EXPECT_EQ(grid[proofc_abi::kEngineRead], 0);
      expectGrid(static_cast<unsigned>(B));
      return;
    }
    ++engineGridsChecked_;
    if (node.empty()) {
      EXPECT_EQ(grid[proofc_abi::kEngineListed], -1);
      return;
    }
    std::vector<int32_t> active;
    for (int b = 0; b < B; ++b)
      if (cand[b] >= 0)
        active.push_back(b);
    const int n = static_cast<int>(active.size());
    EXPECT_EQ(grid[proofc_abi::kEngineRead], 1 - readBefore);
    if (n == B) {
      EXPECT_EQ(grid[proofc_abi::kEngineListed], -1);
      expectGrid(static_cast<unsigned>(B));
      return;
    }
    EXPECT_EQ(grid[proofc_abi::kEngineListed], n);
    const int32_t *half = list + grid[proofc_abi::kEngineRead] * B;
    std::vector<int32_t> listed(half, half + n);
    std::sort(listed.begin(), listed.end());
    EXPECT_EQ(listed, active);
    // At the hand-off the list stays for the tail; the loop's no-op
    // launches run one block.
    expectGrid(handoff ? 1u
                       : static_cast<unsigned>(proofc_abi::listedBlocks(n)));
    ++engineListsChecked_;
  }

  /// The body that calls `kernel` with launch l's arguments
  /// (EmulatedLaunch.h); a node argument passes its record()'s address.
  template <typename... P>
  std::function<void()> call(void (*kernel)(P...), const BoundLaunch &l) {
    return emulatedCall(kernel, l, memory_, [this](const std::string &name) {
      return reinterpret_cast<unsigned long long>(&record(name));
    });
  }

  void runLaunch(const BoundLaunch &l) {
    const std::string &entry = l.launch->entry;
    std::function<void()> body;
    if (entry == "proofc_init")
      body = call(PLAN_ENTRY(proofc_init), l);
    else if (entry == "proofc_engine")
      body = call(PLAN_ENTRY(proofc_engine), l);
    else if (entry == "proofc_policy")
      body = call(PLAN_ENTRY(proofc_policy), l);
    else if (entry == "proofc_advance")
      body = call(PLAN_ENTRY(proofc_advance), l);
    else if (entry == "proofc_advance_engine")
      body = call(PLAN_ENTRY(proofc_advance_engine), l);
    else
      FAIL() << "no emulated kernel for entry " << entry;
    ASSERT_TRUE(body) << entry;
    const bool sizesGrid =
        entry == "proofc_init" || entry == "proofc_advance_engine";
    std::vector<int32_t> before;
    int32_t readBefore = 0;
    unsigned grid = l.grid;
    // Whether this advance-engine is the tail hand-off's step (step.cu's
    // PROOFC_TAIL_HANDOFF, 0 but in EmulatedPlanHandoffTest.cpp): it starts
    // with at most that many slots listed.
    bool handoff = false;
    if (sizesGrid) {
      const int32_t *cand = words(l, "slotCand");
      before.assign(cand, cand + named(l, "B").i32);
      readBefore = words(l, "engineGrid")[proofc_abi::kEngineRead];
      const int32_t listed = words(l, "engineGrid")[proofc_abi::kEngineListed];
      handoff = entry == "proofc_advance_engine" && PROOFC_TAIL_HANDOFF > 0 &&
                listed >= 0 && listed <= PROOFC_TAIL_HANDOFF;
    }
    // The advance-engine runs at the grid its previous launch (or init)
    // asked its node for, as a native graph would; the policy fixture
    // ignores the policy grid (TestBundle.h), so it runs the plan's.
    if (entry == "proofc_advance_engine" && records_.count(l.launch->name)) {
      grid = record(l.launch->name).grid;
      if (grid != l.grid)
        ++listedEngineLaunches_;
    }
#ifdef PROOFC_PLAN_HANDOFF
    if (handoff && claimAtHandoff_)
      claimPendingStep(l);
#endif
    emu::launch(grid, static_cast<unsigned>(l.launch->block), body);
    if (sizesGrid) {
      checkPolicyGrid(l, before, handoff);
      checkEngineGrid(l, readBefore, handoff);
      if (handoff)
        checkHandoff(l);
    }
  }

  /// After the tail hand-off's step: what the tail kernel relies on. The
  /// loop ends; no slot waits for another's step (its claim an entry to
  /// publish, or none), and every slot with a candidate has its children
  /// (checkEngineGrid has checked that the list holds exactly those slots).
  void checkHandoff(const BoundLaunch &l) {
    ++handoffs_;
    EXPECT_EQ(flag(bundle_.plan.schedule.loopFlag), 0);
    const int B = named(l, "B").i32;
    const int32_t *cand = words(l, "slotCand");
    const int32_t *count = words(l, "count");
    const int32_t *claims = words(l, "memoClaims");
    for (int b = 0; b < B; ++b) {
      EXPECT_GE(claims[b], 0) << "slot " << b << " waits at the hand-off";
      if (cand[b] >= 0)
        EXPECT_GT(count[b], 0) << "slot " << b << " has no children";
    }
  }

#ifdef PROOFC_PLAN_HANDOFF
  /// The tail kernel's work (gpu-kernels.md, "The tail hand-off"), as the
  /// persistent kernel does it for each listed slot: score its children
  /// (the policy fixture, on every slot with a candidate: the listed
  /// ones), then advance it without waiting for another slot's step and
  /// derive, until no listed slot holds a candidate. The rounds keep the
  /// slots in step with each other, which no outcome depends on.
  void runTail() {
    if (handoffs_ == 0)
      return; // the loop ran to the end of the pool's candidates
    const BoundLaunch *engine = nullptr, *policy = nullptr;
    for (const Launch &launch : bundle_.plan.launches) {
      if (launch.entry == "proofc_advance_engine")
        engine = &binding_.launch(launch.name);
      else if (launch.entry == "proofc_policy")
        policy = &binding_.launch(launch.name);
    }
    ASSERT_TRUE(engine && policy);
    const BoundLaunch &l = *engine;
    const int B = named(l, "B").i32;
    const int32_t *grid = words(l, "engineGrid");
    const int32_t *half =
        words(l, "engineList") + grid[proofc_abi::kEngineRead] * B;
    const std::vector<int32_t> slots(half,
                                     half + grid[proofc_abi::kEngineListed]);
    // The fixture's guard is the loop flag, which the hand-off cleared.
    const int32_t loopFlag =
        binding_.bufferIndex(bundle_.plan.schedule.loopFlag);
    poke(loopFlag, 0, 1);
    auto anyActive = [&] {
      for (int32_t b : slots)
        if (words(l, "slotCand")[b] >= 0)
          return true;
      return false;
    };
    while (anyActive()) {
      runLaunch(*policy);
      for (int32_t b : slots)
        emu::launch(1, static_cast<unsigned>(l.launch->block),
                    [&] { tailSlot(l, b); });
      ++tailRounds_;
      ASSERT_LT(tailRounds_, 10000) << "the tail does not end";
    }
    poke(loopFlag, 0, 0);
  }

  /// claimAStepAtTheHandoff's claim: the first slot with a candidate whose
  /// chosen child is not terminal has that child's memo key claimed
  /// (memo.cu's lookup on an empty entry, as the slot that computes it).
  void claimPendingStep(const BoundLaunch &l) {
    constexpr int W = 3 * PROOFC_A;
    auto buf = [&](const char *name) { return buffer(l, name); };
    const int B = named(l, "B").i32, R = named(l, "R").i32,
              D = named(l, "D").i32;
    const unsigned mask =
        static_cast<unsigned>(named(l, "memoEntries").i32) - 1u;
    const int *cand = buf("slotCand"), *count = buf("count"),
              *action = buf("action"), *depth = buf("depth"),
              *pool = buf("pool"), *derived = buf("derived");
    for (int b = 0; b < B && claimedSlot_ < 0; ++b) {
      if (cand[b] < 0 || count[b] == 0)
        continue;
      const int *g =
          derived + (static_cast<long long>(b) * PROOFC_S + action[b]) * W;
      if (PLAN_ENTRY(proofc_step)::terminalStatus(g[0], depth[b] + 1, R, D) >=
          0)
        continue;
      const int c = cand[b];
      const auto key = PLAN_ENTRY(proofc_memo)::makeKey(
          g, pool[3 * c], pool[3 * c + 1], pool[3 * c + 2]);
      int next[W], stepAction = 0, claim = 0;
      float stepLogp = 0.f;
      bool pending = false;
      if (PLAN_ENTRY(proofc_memo)::lookup(buf("memo"), mask, g, key, next,
                                          stepLogp, stepAction, false, claim,
                                          pending) ||
          claim == 0)
        continue; // known already, or pending: nothing to claim here
      claimedSlot_ = b;
    }
  }

  /// One slot's advance and derive in the tail: slot.cu's
  /// proofc_slot_advance_engine on the global buffers.
  void tailSlot(const BoundLaunch &l, int b) {
    auto buf = [&](const char *name) { return buffer(l, name); };
    auto fbuf = [&](const char *name) { return buffer<float>(l, name); };
    auto i32 = [&](const char *name) { return named(l, name).i32; };
    // Whether the slot still holds a candidate is its slotCand (runTail
    // reads it); the derive makes no children for a slot without one.
    if (threadIdx.x == 0) {
      PLAN_ENTRY(proofc_step)::ThreadWalk walk;
      PLAN_ENTRY(proofc_step)::advanceSlot(
          walk, b, buf("pool"), i32("N"), i32("D"), i32("R"), buf("derived"),
          buf("count"), buf("action"), fbuf("actionLogp"), buf("state"),
          buf("slotCand"), buf("depth"), fbuf("logp"), buf("nextCand"),
          buf("outStatus"), buf("outDepth"), fbuf("outLogp"), buf("outActions"),
          i32("actionsD"), buf("memo"), buf("memoClaims"), i32("memoEntries"),
          /*mayWait=*/false);
    }
    __syncthreads();
    PLAN_ENTRY(proofc_engine_impl)::deriveSlot(
        b, buf("state"), buf("slotCand"), buf("pool"), buf("facts"),
        buf("psOffsets"), buf("poFacts"), buf("poOffsets"), buf("predOffsets"),
        buf("ruleHeads"), buf("ruleBodyOffsets"), buf("ruleBody"),
        buf("ruleNumVars"), buf("rulePredOffsets"), buf("ruleIdsByPred"),
        i32("E"), i32("R"), buf("derived"), buf("count"));
  }
#endif

  const Bundle &bundle_;
  const PlanBinding &binding_;
  EmulatedMemory memory_;
  int64_t policyGridsChecked_ = 0, listedGridsChecked_ = 0,
          multiPartListsChecked_ = 0, engineGridsChecked_ = 0,
          engineListsChecked_ = 0, listedEngineLaunches_ = 0, handoffs_ = 0,
          tailRounds_ = 0;
  bool claimAtHandoff_ = false;
  int32_t claimedSlot_ = -1;
  /// The node records of the launches named by "node:" arguments.
  std::map<std::string, proofc_abi::GraphNodeRecord> records_;
};

struct Case {
  const char *dataset;
  int64_t queries, corruptions;
  int32_t slots;
  bool fusedStep; ///< policy + proofc_advance_engine, or the engine cond
};

/// A case's dataset with its trained weights, the V10 program at its slots
/// and its candidates.
struct Workload {
  Dataset ds;
  TensorMap weights;
  ProgramSpec program;
  CandidateSet set;
};

Workload loadWorkload(const Case &c) {
  Workload w{loadDataset(dataDir(c.dataset)),
             readSafetensors(weightsFile(c.dataset)),
             v10Program(),
             {}};
  w.program.shape.B = c.slots;
  CandidateOptions opts;
  opts.corruptions = c.corruptions;
  opts.queries = c.queries;
  w.set = buildCandidates(w.ds, opts);
  return w;
}

/// The emulated plan's outcomes against the host backend's: as many, each
/// with the same status and depth and its log-probability within 1e-4 (the
/// policy fixture sums in its own order). Fatal on a count mismatch: call
/// it under ASSERT_NO_FATAL_FAILURE.
void expectHostsOutcomes(const std::vector<Outcome> &emulated,
                         const std::vector<Outcome> &host) {
  ASSERT_EQ(emulated.size(), host.size());
  for (size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(emulated[i].status, host[i].status) << "candidate " << i;
    EXPECT_EQ(emulated[i].depth, host[i].depth) << "candidate " << i;
    EXPECT_NEAR(emulated[i].logp, host[i].logp, 1e-4) << "candidate " << i;
  }
}

/// nations (all corruptions of its first `queries` test queries), 16 slots.
Workload nations(int64_t queries) {
  return loadWorkload(Case{"nations", queries, 0, 16, false});
}

class PLAN_TEST(EmulatedPlanVsHost) : public ::testing::TestWithParam<Case> {};

PLAN_GTEST(TEST_P, PLAN_TEST(EmulatedPlanVsHost), SameOutcomesAsHostBackend) {
  const Case &c = GetParam();
  Workload w = loadWorkload(c);
  const Dataset &ds = w.ds;
  const TensorMap &weights = w.weights;
  const ProgramSpec &program = w.program;
  const CandidateSet &set = w.set;
  EvalInputs inputs{program, ds, weights, set, false};

  BackendTimings hostTimings;
  std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(inputs, hostTimings);

  // engineThreads 32: the emulated engine was compiled with 32 threads.
  Bundle bundle = makeTestBundle(program, PROOFC_ENGINE_THREADS, c.fusedStep,
                                 /*policyNode=*/true);
  bundle = parseBundle(serializeBundle(bundle), "test.pcb"); // as read
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  PlanBinding binding(bundle, inputs, kb, "test.pcb");
  EmulatedPlan plan(bundle, binding);
  const int64_t steps = plan.run();
  EXPECT_GT(steps, 0);
  EXPECT_EQ(gConditionals.count(0), 0u) << "a zero handle was set";
  // Every fused step sized the next step's policy grid (checkPolicyGrid).
  EXPECT_EQ(plan.policyGridsChecked(), c.fusedStep ? steps : 0);
  // Every fused step's advance-engine listed the next step's tiles (the
  // plan names the node), but the hand-off's, which lists none.
  if (c.fusedStep)
    EXPECT_EQ(plan.listedGridsChecked() + plan.handoffs(), steps);
#ifdef PROOFC_PLAN_HANDOFF
  // With at most 15 slots listed (B = 8 or 16) the loop hands off once the
  // pool is empty, and the tail finishes what is left: on countries' 8
  // slots in several rounds (nations' last slots may all finish in the
  // hand-off's own step; there a slot waits for another's step as the
  // hand-off's step starts, and computes it itself).
  EXPECT_EQ(plan.handoffs(), 1);
  if (c.slots == 8)
    EXPECT_GT(plan.tailRounds(), 0);
#else
  EXPECT_EQ(plan.handoffs(), 0);
#endif
  // Every fused step's advance-engine sized the next one's grid; the
  // steps after the pool emptied listed their active slots, and ran at
  // the listed grid.
  EXPECT_EQ(plan.engineGridsChecked(), c.fusedStep ? steps : 0);
  if (c.fusedStep) {
    EXPECT_GT(plan.engineListsChecked(), 0);
    EXPECT_GT(plan.listedEngineLaunches(), 0);
  }
  // Some slot listed several parts (TestBundle.h's kListedChildrenPerPart;
  // nations' slots never have more than 2 children).
  if (c.fusedStep && std::string(c.dataset) != "nations")
    EXPECT_GT(plan.multiPartListsChecked(), 0);
  std::vector<Outcome> emulated = plan.outcomes();
  // Read in place (the CUDA readback's pinned staging): the same outcomes.
  {
    const std::vector<int32_t> status = plan.read<int32_t>(binding.outStatus());
    const std::vector<int32_t> depth = plan.read<int32_t>(binding.outDepth());
    const std::vector<float> logp = plan.read<float>(binding.outLogp());
    expectSameOutcomes(
        emulated, binding.outcomes(status.data(), depth.data(), logp.data()));
  }
  // The pool gathered in place (a streamed block's upload) equals what the
  // binding's setup filled the buffer with.
  ASSERT_EQ(binding.poolBuffers().size(), 1u);
  for (const auto &[index, words] : binding.poolBuffers()) {
    const std::vector<uint32_t> &setup =
        binding.buffers()[static_cast<size_t>(index)].data;
    ASSERT_EQ(setup.size(), words);
    std::vector<uint32_t> gathered(words, 0xdeadbeef);
    binding.writePool(index, set, gathered.data());
    EXPECT_EQ(gathered, setup);
  }

  ASSERT_NO_FATAL_FAILURE(expectHostsOutcomes(emulated, host));
  int proved = 0;
  for (const Outcome &o : host)
    proved += o.status == ProofStatus::Proved;
  RecordProperty("candidates", static_cast<int>(host.size()));
  RecordProperty("proved", proved);
  Metrics a = computeMetrics(set, host), b = computeMetrics(set, emulated);
  EXPECT_NEAR(a.both.mrr, b.both.mrr, 1e-3);
  EXPECT_NEAR(a.both.hits10, b.both.hits10, 1e-3);
}

#ifndef PROOFC_PLAN_HANDOFF
/// The device's side of a cancelled CUDA run (CudaBackend's CancelWatcher):
/// once the host has written N to the pool counter, no slot takes a new
/// candidate and the loop ends after the candidates in flight, within D
/// steps (fused: each after at most PROOFC_MEMO_WAITS waits for another
/// slot's step), as at the end of the pool; every outcome written is the
/// host's.
/// With the step memo (fused step), whose advance walks through finished
/// candidates and refills, and with the engine cond.
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanCancel),
           PoolCounterAtNDrainsWithinDSteps) {
  Workload w = nations(10);
  const Dataset &ds = w.ds;
  const TensorMap &weights = w.weights;
  const ProgramSpec &program = w.program;
  const CandidateSet &set = w.set;
  EvalInputs inputs{program, ds, weights, set, false};
  BackendTimings t;
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(inputs, t);
  const int64_t n = static_cast<int64_t>(host.size());
  const std::vector<int64_t> order = poolOrder(n, program.shape.B);
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused step" : "engine cond");
    Bundle bundle = makeTestBundle(program, PROOFC_ENGINE_THREADS, fused);
    PlanBinding binding(bundle, inputs, kb, "test.pcb");
    EmulatedPlan plan(bundle, binding);
    plan.setup();
    ASSERT_TRUE(plan.step());
    plan.poke(binding.bufferIndex("next_cand"), 0, static_cast<uint32_t>(n));
    const int64_t bound =
        fused ? (1 + PROOFC_MEMO_WAITS) * program.shape.D : program.shape.D;
    int64_t after = 0;
    while (after <= bound && plan.step())
      ++after;
    EXPECT_LE(after, bound) << "the slots in flight took too long";
    const std::vector<int32_t> status =
        plan.readAll<int32_t>(binding.outStatus());
    const std::vector<int32_t> depth =
        plan.readAll<int32_t>(binding.outDepth());
    int64_t written = 0;
    for (int64_t q = 0; q < n; ++q) {
      if (depth[q] < 1)
        continue; // never started
      ++written;
      const Outcome &h = host[order[q]];
      EXPECT_EQ(status[q], static_cast<int32_t>(h.status)) << "position " << q;
      EXPECT_EQ(depth[q], h.depth) << "position " << q;
    }
    EXPECT_GE(written, program.shape.B) << "the slots in flight finished";
    EXPECT_LT(written, n) << "the rest of the pool never started";
  }
}

/// Weights that make every dot product overflow (the last LayerNorm's
/// weight times 1e30): the fixture policy gives the step a NaN
/// log-probability, the advance keeps it, and the step memo (fused step)
/// passes it on, so exactly the host's candidates end with a NaN — the
/// ones RunSession's check would name.
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanNonFinite), SameNaNCandidatesAsHost) {
  Workload w = nations(10);
  for (float &v : w.weights.at("mlp.1.ln.weight").data)
    v *= 1e30f;
  const Dataset &ds = w.ds;
  const TensorMap &weights = w.weights;
  const ProgramSpec &program = w.program;
  const CandidateSet &set = w.set;
  EvalInputs inputs{program, ds, weights, set, false};
  BackendTimings t;
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(inputs, t);
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused step, memo" : "engine cond");
    Bundle bundle = makeTestBundle(program, PROOFC_ENGINE_THREADS, fused);
    PlanBinding binding(bundle, inputs, kb, "test.pcb");
    EmulatedPlan plan(bundle, binding);
    plan.run();
    const std::vector<Outcome> emulated = plan.outcomes();
    ASSERT_EQ(emulated.size(), host.size());
    int64_t nan = 0;
    for (size_t i = 0; i < host.size(); ++i) {
      EXPECT_EQ(std::isnan(emulated[i].logp), std::isnan(host[i].logp))
          << "candidate " << i;
      nan += std::isnan(host[i].logp);
    }
    EXPECT_GT(nan, 0);
    EXPECT_LT(nan, static_cast<int64_t>(host.size()));
  }
}
#endif // PROOFC_PLAN_HANDOFF

/// --proofs on the CUDA path: with EvalInputs::actions the plan records
/// every step's action (out.actions), through the step memo's hits too
/// (fused step) and through proofc_advance (engine cond); the trace equals
/// the host backend's, and the proofs replayed from it are the host's byte
/// for byte. The files are written with the host's outcomes for both: a
/// proof shows its candidate's log-probability to 9 digits, in which the
/// fixture policy (float) and the host (double) may differ (spec §7), while
/// every status and depth must be the host's. Trained weights, so that
/// candidates are proved in several steps.
PLAN_GTEST(TEST_P, PLAN_TEST(EmulatedPlanVsHost), RecordsTheHostsActions) {
  const Case &c = GetParam();
  if (std::string(c.dataset) == "countries_s1")
    GTEST_SKIP() << "covered by countries_s3 and nations";
  Workload w = loadWorkload(c);
  const Dataset &ds = w.ds;
  const TensorMap &weights = w.weights;
  const ProgramSpec &program = w.program;
  const CandidateSet &set = w.set;
  ActionTrace hostTrace;
  EvalInputs hostInputs{program, ds, weights, set, false};
  hostInputs.actions = &hostTrace;
  BackendTimings t;
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(hostInputs, t);

  ActionTrace unused;
  EvalInputs inputs{program, ds, weights, set, false};
  inputs.actions = &unused; // the binding sizes out.actions N x D
  Bundle bundle = makeTestBundle(program, PROOFC_ENGINE_THREADS, c.fusedStep,
                                 /*policyNode=*/true);
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  PlanBinding binding(bundle, inputs, kb, "test.pcb");
  ASSERT_TRUE(binding.recordsActions());
  EmulatedPlan plan(bundle, binding);
  plan.run();
  const std::vector<Outcome> emulated = plan.outcomes();
  const ActionTrace trace =
      binding.actions(plan.readAll<int32_t>(binding.outActions()), emulated);

  ASSERT_NO_FATAL_FAILURE(expectHostsOutcomes(emulated, host));
  ASSERT_EQ(trace.D, hostTrace.D);
  ASSERT_EQ(trace.actions.size(), hostTrace.actions.size());
  int64_t steps = 0;
  for (size_t i = 0; i < trace.actions.size(); ++i) {
    EXPECT_EQ(trace.actions[i], hostTrace.actions[i])
        << "candidate " << i / static_cast<size_t>(trace.D) << " step "
        << i % static_cast<size_t>(trace.D);
    steps += hostTrace.actions[i] >= 0;
  }
  EXPECT_GT(steps, static_cast<int64_t>(host.size())) << "multi-step proofs";
  for (ProofFormat format : {ProofFormat::Json, ProofFormat::Prolog}) {
    const std::string a = proofsFile(format, ProofSelection::All, ds, false,
                                     program.shape, set, host, hostTrace);
    const std::string b = proofsFile(format, ProofSelection::All, ds, false,
                                     program.shape, set, host, trace);
    EXPECT_FALSE(a.empty());
    expectSameText(a, b, "the proofs files");
  }
}

#ifndef PROOFC_PLAN_HANDOFF

/// Without EvalInputs::actions the plan records nothing: ACTIONS is 0 and
/// out.actions one word, which no step writes.
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanActions), NotRecordedUnlessAsked) {
  Workload w = nations(2);
  EvalInputs inputs{w.program, w.ds, w.weights, w.set, false};
  KnowledgeBase kb = buildKnowledgeBase(w.ds, false);
  for (bool fused : {true, false}) {
    Bundle bundle = makeTestBundle(w.program, PROOFC_ENGINE_THREADS, fused);
    PlanBinding binding(bundle, inputs, kb, "test.pcb");
    EXPECT_FALSE(binding.recordsActions());
    EmulatedPlan plan(bundle, binding);
    plan.run();
    EXPECT_EQ(plan.readAll<int32_t>(binding.outActions()),
              std::vector<int32_t>{0});
  }
}

/// A bundle compiled before the plans recorded the actions (no out.actions
/// buffer) cannot record them: one error when it is bound, not a run
/// without them.
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanActions),
           PlanWithoutOutActionsCannotRecord) {
  Workload w = nations(1);
  ActionTrace trace;
  EvalInputs inputs{w.program, w.ds, w.weights, w.set, false};
  inputs.actions = &trace;
  KnowledgeBase kb = buildKnowledgeBase(w.ds, false);
  Bundle bundle = makeTestBundle(w.program, PROOFC_ENGINE_THREADS, true);
  auto &buffers = bundle.plan.buffers;
  buffers.erase(std::remove_if(buffers.begin(), buffers.end(),
                               [](const BufferDecl &b) {
                                 return b.init == "out.actions";
                               }),
                buffers.end());
  try {
    PlanBinding(bundle, inputs, kb, "old.pcb");
    ADD_FAILURE() << "bound without out.actions";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "old.pcb: the plan binds no buffer to out.actions, so it "
                 "cannot record the steps' actions (--proofs): recompile the "
                 "bundle with this proofc");
  }
}

/// The step memo's waits (advance.cu, PROOFC_MEMO_WAITS): slots of the
/// fused step that find their step claimed by another slot wait for it
/// (memo_claims < 0 between steps), and the outcomes stay the host's at the
/// auto memo size, in a table of 64 entries and in one of a single entry
/// (where nearly every lookup misses and claims collide).
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanMemo),
           WaitsKeepTheHostsOutcomesAtEveryMemoSize) {
  Workload w = loadWorkload(Case{"countries_s1", 2, 6, 8, true});
  EvalInputs inputs{w.program, w.ds, w.weights, w.set, false};
  BackendTimings t;
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(inputs, t);
  KnowledgeBase kb = buildKnowledgeBase(w.ds, false);
  Bundle bundle = makeTestBundle(w.program, PROOFC_ENGINE_THREADS, true);
  for (int64_t entries : {int64_t{-1}, int64_t{64}, int64_t{1}}) {
    SCOPED_TRACE("memo entries " + std::to_string(entries));
    PlanBinding binding(bundle, inputs, kb, "test.pcb", entries);
    EmulatedPlan plan(bundle, binding);
    plan.setup();
    const int32_t claims = binding.bufferIndex("memo_claims");
    int64_t waits = 0;
    while (plan.step())
      for (int32_t c : plan.readAll<int32_t>(claims))
        waits += c < 0;
    if (PROOFC_MEMO_WAITS == 0)
      EXPECT_EQ(waits, 0) << "a slot waited, compiled without waits";
    else if (entries == -1)
      EXPECT_GT(waits, 0) << "no slot waited: the test shows nothing";
    const std::vector<Outcome> emulated = plan.outcomes();
    ASSERT_EQ(emulated.size(), host.size());
    for (size_t i = 0; i < host.size(); ++i) {
      EXPECT_EQ(emulated[i].status, host[i].status) << "candidate " << i;
      EXPECT_EQ(emulated[i].depth, host[i].depth) << "candidate " << i;
    }
  }
}

/// The step memo keys a relevant step by its candidate: RelevantSteps
/// (TestUtil.h) says how its candidates would tell a memo that shared a
/// relevant step. Checked on the host first, then the emulated fused step
/// (memo on, with and without waits) against it.
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanMemo),
           RelevantStepsAreTheCandidatesOwn) {
  TempDir dir;
  const RelevantSteps w = relevantSteps(dir);
  const Dataset &ds = w.ds;
  const CandidateSet &set = w.set;
  ProgramSpec program = v10Program();
  program.shape.B = 16; // every candidate in the first wave
  const TensorMap weights = initWeights(program, ds, 1);
  EvalInputs inputs{program, ds, weights, set, false};
  BackendTimings t;
  // The scenario RelevantSteps describes, on the host (its memo off).
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1, 0}).run(inputs, t);
  expectRelevantStepsScenario(w, host, program.shape.D);
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  Bundle bundle = makeTestBundle(program, PROOFC_ENGINE_THREADS, true);
  PlanBinding binding(bundle, inputs, kb, "test.pcb");
  EmulatedPlan plan(bundle, binding);
  plan.run();
  const std::vector<Outcome> emulated = plan.outcomes();
  expectSameOutcomes(emulated, host);
}
#endif // PROOFC_PLAN_HANDOFF

#ifdef PROOFC_PLAN_HANDOFF
/// A slot whose step another slot is computing when the hand-off's step
/// starts (its entry claimed, never published here) does not wait for it:
/// it computes the step itself (checkHandoff: no slot waits, every slot
/// with a candidate has children), and the outcomes are still the host's.
PLAN_GTEST(TEST, PLAN_TEST(EmulatedPlanTail),
           APendingStepIsComputedAtTheHandoff) {
  Workload w = loadWorkload(Case{"countries_s1", 2, 6, 8, true});
  EvalInputs inputs{w.program, w.ds, w.weights, w.set, false};
  BackendTimings t;
  const std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(inputs, t);
  KnowledgeBase kb = buildKnowledgeBase(w.ds, false);
  Bundle bundle = makeTestBundle(w.program, PROOFC_ENGINE_THREADS, true,
                                 /*policyNode=*/true);
  PlanBinding binding(bundle, inputs, kb, "test.pcb");
  EmulatedPlan plan(bundle, binding);
  plan.claimAStepAtTheHandoff();
  plan.run();
  EXPECT_EQ(plan.handoffs(), 1);
  EXPECT_GE(plan.claimedSlot(), 0)
      << "no step to claim: the test shows nothing";
  expectHostsOutcomes(plan.outcomes(), host);
}
#endif

// The hand-off's variant has the fused step alone: the engine cond's
// advance neither lists nor hands off.
PLAN_GTEST(INSTANTIATE_TEST_SUITE_P, Datasets, PLAN_TEST(EmulatedPlanVsHost),
           ::testing::Values(
#ifndef PROOFC_PLAN_HANDOFF
               Case{"countries_s1", 2, 6, 8, false},
               Case{"nations", 2, 0, 16, false},
               Case{"countries_s3", 2, 8, 8, false},
#endif
               Case{"countries_s1", 2, 6, 8, true},
               Case{"nations", 2, 0, 16, true},
               Case{"countries_s3", 2, 8, 8, true}),
           [](const ::testing::TestParamInfo<Case> &info) {
             return std::string(info.param.dataset) +
                    (info.param.fusedStep ? "_fused" : "_cond");
           });

} // namespace
} // namespace proofc::test
