//===- EmulatedPolicyAdvanceTest.cpp - advance in the policy, emulated ----===//
//
// eval-lower-to-gpu's advance-in-policy (docs/gpu-kernels.md, "The advance
// in the policy"): the step's policy block that selects a slot's action
// calls slot.cu's proofc_policy_advance (EmulatedPolicyAdvanceSlot.cpp),
// which advances, derives and lists the slot, and step.cu's
// proofc_step_end then ends the step. The reference bundle's fused step
// (TestBundle.h) is rewritten into that shape: the advance-engine's slot
// words and the step's lists become the policy launch's last arguments, and
// proofc_step_end takes the advance-engine's place. The policy fixture
// (one block a slot, every slot's block: the every-slot grid) stands in for
// the generated kernel, wrapped so that its block then makes the call, its
// words in shared memory as the generated kernel stores them. Outcomes must
// be the host backend's (spec §7), with memo waits (auto below B = 16384),
// and each step's counts, lists and flags what the advance-engine's last
// block would have left.
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "EmulatedPolicyAdvance.h"

#define PROOFC_A EMULATED_POLICY_ADVANCE_A
#define PROOFC_S EMULATED_POLICY_ADVANCE_S
#define PROOFC_DIM EMULATED_POLICY_ADVANCE_THREADS
#define PROOFC_ENGINE_THREADS EMULATED_POLICY_ADVANCE_THREADS
#define PROOFC_MEMO_WAITS 2
// Renamed apart from the other emulated copies of step.cu and the fixture.
#define PA_ENTRY(name) name##_pa
#define cudaGraphSetConditional PA_ENTRY(cudaGraphSetConditional)
#define cudaGraphKernelNodeSetGridDim PA_ENTRY(cudaGraphKernelNodeSetGridDim)
#define setNodeGrid PA_ENTRY(setNodeGrid)
#define proofc_step PA_ENTRY(proofc_step)
#define proofc_memo PA_ENTRY(proofc_memo)
#define proofc_engine PA_ENTRY(proofc_engine)
#define proofc_engine_impl PA_ENTRY(proofc_engine_impl)
#define proofc_init PA_ENTRY(proofc_init)
#define proofc_advance PA_ENTRY(proofc_advance)
#define proofc_advance_engine PA_ENTRY(proofc_advance_engine)
#define proofc_finish PA_ENTRY(proofc_finish)
#define proofc_step_end PA_ENTRY(proofc_step_end)
#define proofc_list_slots PA_ENTRY(proofc_list_slots)
#define proofc_policy PA_ENTRY(proofc_policy)
#define proofc_policy_fixture PA_ENTRY(proofc_policy_fixture)
#include "Kernels/step.cu"
#include "runtime/cuda/fixtures/policy.cu"

namespace {
std::map<unsigned long long, unsigned> gPaConditionals;

/// A word of the advance's arguments, as the generated kernel stores it:
/// a pointer's address, an int32 sign-extended.
template <typename T> unsigned long long advanceWord(T *p) {
  return reinterpret_cast<unsigned long long>(p);
}
unsigned long long advanceWord(int v) {
  return static_cast<unsigned long long>(static_cast<long long>(v));
}
} // namespace

extern "C" void cudaGraphSetConditional(unsigned long long handle,
                                        unsigned int value) {
  gPaConditionals[handle] = value;
}
extern "C" int cudaGraphKernelNodeSetGridDim(unsigned long long,
                                             ProofcGridDim) {
  ADD_FAILURE() << "no launch is resized: the plan names no node";
  return 0;
}

/// The policy fixture, then what the generated kernel's selecting block
/// does: the advance's words into shared memory by thread 0, a barrier,
/// the call by every thread.
#define PA_STORE_WORD(Name, type, param, Kind) *word++ = advanceWord(param);
extern "C" __global__ void proofc_policy_advancing_pa(
    const int *guard, const int *stateIn, const int *derivedIn,
    const int *countIn, const int *slotCandIn, const float *predProj,
    const float *arg0Const, const float *arg1Const, const float *arg0Var,
    const float *arg1Var, const float *w0, const float *b0, const float *g0,
    const float *be0, const float *w1, const float *b1, const float *g1,
    const float *be1, int RIn, float scale, int *actionOut,
    float *actionLogpOut PROOFC_ABI_POLICY_ADVANCE_ARGS(PROOFC_ABI_PARAM)) {
  if (*guard == 0 || slotCandIn[blockIdx.x] < 0)
    return;
  PA_ENTRY(proofc_policy)(guard, stateIn, derivedIn, countIn, slotCandIn,
                          predProj, arg0Const, arg1Const, arg0Var, arg1Var, w0,
                          b0, g0, be0, w1, b1, g1, be1, RIn, scale, actionOut,
                          actionLogpOut);
  __shared__ unsigned long long sWords[proofc_abi::kPolicyAdvanceNumArgs];
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long *word = sWords;
    PROOFC_ABI_POLICY_ADVANCE_ARGS(PA_STORE_WORD)
  }
  __syncthreads();
  proofc_policy_advance_emulated(static_cast<int>(blockIdx.x), sWords);
}
#undef PA_STORE_WORD

#include "EmulatedLaunch.h"
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/TestBundle.h"

#include <algorithm>
#include <functional>
#include <map>
#include <type_traits>
#include <utility>

namespace proofc::test {
namespace {

/// The reference bundle's fused step (TestBundle.h, no policy node: the
/// fixture runs every slot's block) as eval-lower-to-gpu's
/// advance-in-policy lowers it: the policy launch ends with the advance's
/// words (the advance-engine's slot step words, then the counters, the
/// children a part, the policy grid, B and the engine grid), and
/// proofc_step_end replaces the advance-engine.
Bundle policyAdvanceBundle(const ProgramSpec &program) {
  Bundle bundle =
      makeTestBundle(program, EMULATED_POLICY_ADVANCE_THREADS, true, false);
  GpuPlan &plan = bundle.plan;
  auto find = [&](const std::string &name) {
    return std::find_if(plan.launches.begin(), plan.launches.end(),
                        [&](const Launch &l) { return l.name == name; });
  };
  auto engine = find("advance_engine");
  auto score = find("score");
  const std::vector<std::string> engineArgs = engine->args;
  score->args.insert(score->args.end(), engineArgs.begin() + 1,
                     engineArgs.begin() + 1 + proofc_abi::kSlotNumArgs);
  for (const std::string &a :
       {std::string("buf:step_counters"),
        "i32:" + std::to_string(program.shape.S),
        std::string("buf:policy_grid"), std::string("buf:policy_list"),
        std::string("sym:B"), std::string("buf:engine_grid"),
        std::string("buf:engine_list")})
    score->args.push_back(a);
  *engine =
      Launch{"step_end",
             "step",
             "proofc_step_end",
             Extent{{"1"}},
             32,
             0,
             {"buf:loop_flag", "buf:step_counters", "buf:engine_flag",
              "buf:loop_flag", "cond:loop", "cond:loop", "buf:policy_grid",
              "buf:policy_list", "node:", "sym:B", "buf:engine_grid"},
             LaunchRole::AdvanceEngine};
  plan.schedule.step = {ScheduleNode{"score", "", "", {}},
                        ScheduleNode{"step_end", "", "", {}}};
  // The first derive's slots listed for the first step.
  plan.launches.push_back(
      Launch{"list_slots",
             "step",
             "proofc_list_slots",
             Extent{{"1"}},
             256,
             0,
             {"buf:engine_flag", "buf:count", "buf:slot_cand", "sym:B",
              "i32:" + std::to_string(program.shape.S), "buf:policy_grid",
              "buf:policy_list", "node:", "buf:engine_grid"},
             LaunchRole::AdvanceEngine});
  plan.schedule.setup.push_back(ScheduleNode{"list_slots", "", "", {}});
  // The list's two halves: the step's blocks read one while the advance
  // lists the next step's entries in the other.
  for (BufferDecl &b : plan.buffers)
    if (b.name == "policy_list")
      b.elements.factors.insert(b.elements.factors.begin(), "2");
  // No advance-engine node for init to size.
  for (std::string &a : find("init")->args)
    if (a == "node:advance_engine")
      a = "node:";
  return parseBundle(serializeBundle(bundle), "test.pcb"); // as read
}

/// Host memory for every buffer of a binding; the setup, then the steps.
class EmulatedPolicyAdvance {
public:
  EmulatedPolicyAdvance(const Bundle &bundle, const PlanBinding &binding)
      : bundle_(bundle), binding_(binding) {
    for (const BoundBuffer &b : binding.buffers()) {
      memory_.emplace_back(b.bytes / 4, 0u);
      std::copy(b.data.begin(), b.data.end(), memory_.back().begin());
    }
  }

  int32_t word(const std::string &buffer, size_t i = 0) const {
    return static_cast<int32_t>(memory_[binding_.bufferIndex(buffer)][i]);
  }

  /// The run: init and the first derive, then steps while the loop flag is
  /// set; after each step, what proofc_step_end left (checkStepEnd).
  int64_t run() {
    for (const ScheduleNode &node : bundle_.plan.schedule.setup)
      runLaunch(binding_.launch(node.launch));
    // The first step's list: every slot with a candidate, in the half the
    // first step reads.
    checkList(word("engine_grid", proofc_abi::kEngineRead));
    const int64_t bound = binding_.symbols().at("N") *
                              binding_.symbols().at("D") *
                              (2 + PROOFC_MEMO_WAITS) +
                          2;
    int64_t steps = 0;
    while (word(bundle_.plan.schedule.loopFlag)) {
      const std::vector<int32_t> readBefore = {word("engine_grid", 1)};
      for (const ScheduleNode &node : bundle_.plan.schedule.step)
        runLaunch(binding_.launch(node.launch));
      checkStepEnd(readBefore[0]);
      if (++steps > bound) {
        ADD_FAILURE() << "the plan ran " << steps
                      << " steps, more than any run can take";
        break;
      }
    }
    return steps;
  }

  std::vector<Outcome> outcomes() const {
    return binding_.outcomes(read<int32_t>(binding_.outStatus()),
                             read<int32_t>(binding_.outDepth()),
                             read<float>(binding_.outLogp()));
  }
  int64_t waitsSeen() const { return waitsSeen_; }

private:
  template <typename T> std::vector<T> read(int32_t buffer) const {
    std::vector<T> out(static_cast<size_t>(binding_.symbols().at("N")));
    std::memcpy(out.data(), memory_[buffer].data(), out.size() * 4);
    return out;
  }
  const int32_t *words(const std::string &buffer) const {
    return reinterpret_cast<const int32_t *>(
        memory_[binding_.bufferIndex(buffer)].data());
  }

  /// After a step: the counts re-zeroed, the policy grid every slot's (no
  /// node), the engine list's count the slots still holding a candidate,
  /// each listed once in the half the step wrote, the policy list's same
  /// half an entry for each of their parts (at least one: a slot that
  /// waits or has one child takes its step in part 0), and the loop flag
  /// set while one is.
  void checkStepEnd(int32_t readBefore) {
    const int B = static_cast<int>(binding_.symbols().at("B"));
    EXPECT_EQ(word("step_counters", 0), 0);
    const int32_t *cand = words("slot_cand");
    const int32_t *claims = words("memo_claims");
    std::vector<int32_t> active;
    for (int b = 0; b < B; ++b)
      if (cand[b] >= 0) {
        active.push_back(b);
        waitsSeen_ += claims[b] < 0;
      }
    const int32_t read = word("engine_grid", proofc_abi::kEngineRead);
    EXPECT_EQ(read, 1 - readBefore);
    ASSERT_EQ(word("engine_grid", proofc_abi::kEngineListed),
              static_cast<int32_t>(active.size()));
    const int32_t *half = words("engine_list") + read * B;
    std::vector<int32_t> listed(half, half + active.size());
    std::sort(listed.begin(), listed.end());
    EXPECT_EQ(listed, active);
    checkList(read);
    EXPECT_EQ(word(bundle_.plan.schedule.loopFlag), active.empty() ? 0 : 1);
  }

  /// The policy grid in the list's mode (also without a node: the
  /// every-slot mode is not safe with the advance in the policy), its
  /// count re-zeroed, and the list's half `read` an entry for each part of
  /// each slot with a candidate (at least one: a slot that waits or has
  /// one child takes its step in part 0).
  void checkList(int32_t read) {
    const int B = static_cast<int>(binding_.symbols().at("B"));
    const int S = static_cast<int>(binding_.symbols().at("S"));
    const int32_t *cand = words("slot_cand");
    const int32_t *count = words("count");
    std::vector<std::pair<int32_t, int32_t>> expected;
    for (int b = 0; b < B; ++b)
      if (cand[b] >= 0)
        for (int part = 0; part < proofc_abi::policyParts(count[b], S); ++part)
          expected.emplace_back(b + part * B, count[b]);
    EXPECT_EQ(word("policy_grid", proofc_abi::kPolicyListCount), 0);
    ASSERT_EQ(word("policy_grid", proofc_abi::kPolicyListed),
              static_cast<int32_t>(expected.size()));
    // One part a slot here (the fixture's S children a part): B entries a
    // half.
    const int32_t *entries =
        words("policy_list") + read * B * proofc_abi::kPolicyEntryWords;
    std::vector<std::pair<int32_t, int32_t>> entered;
    for (size_t i = 0; i < expected.size(); ++i) {
      const int32_t *e = entries + i * proofc_abi::kPolicyEntryWords;
      entered.emplace_back(e[proofc_abi::kPolicyEntryBlock],
                           e[proofc_abi::kPolicyEntryCount]);
    }
    std::sort(entered.begin(), entered.end());
    EXPECT_EQ(entered, expected);
  }

  /// The body that calls `kernel` with launch l's arguments
  /// (EmulatedLaunch.h); the plan names no node.
  template <typename... P>
  std::function<void()> call(void (*kernel)(P...), const BoundLaunch &l) {
    return emulatedCall(kernel, l, memory_, [](const std::string &name) {
      ADD_FAILURE() << "a node argument names " << name;
      return 0ull;
    });
  }

  void runLaunch(const BoundLaunch &l) {
    const std::string &entry = l.launch->entry;
    std::function<void()> body;
    if (entry == "proofc_init")
      body = call(PA_ENTRY(proofc_init), l);
    else if (entry == "proofc_engine")
      body = call(PA_ENTRY(proofc_engine), l);
    else if (entry == "proofc_policy")
      body = call(proofc_policy_advancing_pa, l);
    else if (entry == "proofc_step_end")
      body = call(PA_ENTRY(proofc_step_end), l);
    else if (entry == "proofc_list_slots")
      body = call(PA_ENTRY(proofc_list_slots), l);
    else
      FAIL() << "no emulated kernel for entry " << entry;
    ASSERT_TRUE(body) << entry;
    emu::launch(l.grid, static_cast<unsigned>(l.launch->block), body);
  }

  const Bundle &bundle_;
  const PlanBinding &binding_;
  EmulatedMemory memory_;
  int64_t waitsSeen_ = 0;
};

struct Case {
  const char *dataset;
  int64_t queries, corruptions;
  int32_t slots;
};

class EmulatedPolicyAdvanceVsHost : public ::testing::TestWithParam<Case> {};

TEST_P(EmulatedPolicyAdvanceVsHost, SameOutcomesAsHostBackend) {
  const Case &c = GetParam();
  Dataset ds = loadDataset(dataDir(c.dataset));
  TensorMap weights = readSafetensors(weightsFile(c.dataset));
  ProgramSpec program = v10Program();
  program.shape.B = c.slots;
  ASSERT_EQ(program.shape.A, EMULATED_POLICY_ADVANCE_A);
  ASSERT_EQ(program.shape.S, EMULATED_POLICY_ADVANCE_S);
  ASSERT_EQ(program.shape.d, EMULATED_POLICY_ADVANCE_THREADS);
  CandidateOptions opts;
  opts.corruptions = c.corruptions;
  opts.queries = c.queries;
  CandidateSet set = buildCandidates(ds, opts);
  EvalInputs inputs{program, ds, weights, set, false};
  BackendTimings timings;
  std::vector<Outcome> host =
      HostBackend(HostBackendOptions{1}).run(inputs, timings);

  Bundle bundle = policyAdvanceBundle(program);
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  PlanBinding binding(bundle, inputs, kb, "test.pcb");
  EmulatedPolicyAdvance plan(bundle, binding);
  gPaConditionals.clear();
  EXPECT_GT(plan.run(), 0);
  EXPECT_EQ(gPaConditionals.count(0), 0u) << "a zero handle was set";
  std::vector<Outcome> emulated = plan.outcomes();
  ASSERT_EQ(emulated.size(), host.size());
  for (size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(emulated[i].status, host[i].status) << "candidate " << i;
    EXPECT_EQ(emulated[i].depth, host[i].depth) << "candidate " << i;
    EXPECT_NEAR(emulated[i].logp, host[i].logp, 1e-4) << "candidate " << i;
  }
  RecordProperty("waits", static_cast<int>(plan.waitsSeen()));
}

INSTANTIATE_TEST_SUITE_P(Datasets, EmulatedPolicyAdvanceVsHost,
                         ::testing::Values(Case{"countries_s1", 2, 6, 8},
                                           Case{"nations", 2, 0, 16},
                                           Case{"countries_s3", 2, 8, 8}),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.dataset);
                         });

} // namespace
} // namespace proofc::test
