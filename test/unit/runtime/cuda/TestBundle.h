//===- TestBundle.h - The reference GpuPlan, built by hand ------*- C++ -*-===//
//
// Test-only: the bundle the compiler is expected to emit for the reference
// `mlp-dot` policy (docs/gpu-kernels.md, "The schedule of the reference
// plan"), with the CUDA C++ templates of lib/Targets/CUDA/Kernels and the
// test fixture test/unit/runtime/cuda/fixtures/policy.cu standing in for the
// PTX policy kernel. Used by the bundle, emulation and GPU tests. With
// `fusedStep`, the step is the compiler's default shape instead: the policy,
// then proofc_advance_engine (no cond). The fixture policy is one block a
// slot (one part of S children) and ignores the step policy grid
// (kernel_abi.h), so its launch is named by the "node:" arguments only with
// `policyNode`, which the CPU emulation sets (it checks the grids the
// kernels ask for and never resizes a launch): a GPU graph would resize it.
// With it the grid is sized as for the compiled policy's parts of
// kListedChildrenPerPart children, so that the emulation checks lists of
// several parts a slot; without, one part of S children, the fixture's.
// The fused step's advance-engine (step.cu itself, compiled with
// kernel_abi.h's kEngineListOption) always names its own launch: it lists
// the slots still active for its next launch (EngineGridWord), which a GPU
// graph resizes and the CPU emulation runs at the grid asked for.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_TESTBUNDLE_H
#define PROOFC_TEST_UNIT_CUDA_TESTBUNDLE_H

#include "Targets/CUDA/Kernels/KernelTestUtil.h"
#include "bundle/Bundle.h"
#include "proofc/contract/kernel_abi.h"
#include "support/FileIO.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace proofc::test {

/// The children a part of the step policy grid's list with `policyNode`:
/// fewer than V10's compiled policy's 15 (a 16-row tile, the parent's row
/// and 15 children's), so that the emulated datasets' slots, which have a
/// few children a step (countries' up to 4), list several parts.
constexpr int kListedChildrenPerPart = 2;

inline Bundle makeTestBundle(const ProgramSpec &program,
                             int engineThreads = 128, bool fusedStep = false,
                             bool policyNode = false) {
  const ShapeParams &s = program.shape;
  const std::string A = "-DPROOFC_A=" + std::to_string(s.A);
  const std::string S = "-DPROOFC_S=" + std::to_string(s.S);
  const std::string threads =
      "-DPROOFC_ENGINE_THREADS=" + std::to_string(engineThreads);
  Bundle bundle;
  bundle.proofcVersion = "test";
  bundle.source = "TestBundle.h";
  bundle.program = program;
  bundle.modules = {
      {"engine", "cuda", kernelTemplate("engine.cu"), {A, S, threads}},
      {"step", "cuda", kernelTemplate("step.cu"),
       fusedStep ? std::vector<std::string>{A, S, threads,
                                            proofc_abi::kEngineListOption}
                 : std::vector<std::string>{A, S, threads}},
      {"policy",
       "cuda",
       readFile(sourceDir() + "/test/unit/runtime/cuda/fixtures/policy.cu"),
       {A, S, "-DPROOFC_DIM=" + std::to_string(s.d)}},
  };

  GpuPlan &plan = bundle.plan;
  auto buffer = [&](const std::string &name, DType dtype,
                    std::vector<std::string> elements, std::string init = "") {
    plan.buffers.push_back({name, dtype, Extent{std::move(elements)}, init});
  };
  const DType I = DType::I32, F = DType::F32;
  // The knowledge base's, the pool's and the recorded actions' buffers:
  // the contract's tables (BufferTables.h), as the compiler declares them.
  for (const BufferTable &t : kBufferTables) {
    const std::vector<std::string_view> factors = t.factors();
    buffer(std::string(t.buffer), t.dtype,
           std::vector<std::string>(factors.begin(), factors.end()),
           std::string(t.binding));
  }
  buffer("state", I, {"B", "A", "3"});
  buffer("slot_cand", I, {"B"});
  buffer("depth", I, {"B"});
  buffer("logp", F, {"B"});
  buffer("derived", I, {"B", "S", "A", "3"});
  buffer("count", I, {"B"});
  buffer("action", I, {"B"});
  buffer("action_logp", F, {"B"});
  buffer("engine_flag", I, {"1"});
  buffer("loop_flag", I, {"1"});
  buffer("policy_grid", I, {std::to_string(proofc_abi::kPolicyGridWords)});
  const std::string policyNodeArg = policyNode ? "node:score" : "node:";
  const int childrenPerPart =
      policyNode ? kListedChildrenPerPart : static_cast<int>(s.S);
  const int policyParts =
      proofc_abi::policyParts(static_cast<int>(s.S), childrenPerPart);
  buffer("policy_list", I,
         {"B", std::to_string(policyParts),
          std::to_string(proofc_abi::kPolicyEntryWords)});
  // The advance-engine's grid: it resizes its own next launch (the real
  // step.cu, on the GPU as in the emulation).
  buffer("engine_grid", I, {std::to_string(proofc_abi::kEngineGridWords)});
  buffer("engine_list", I, {"2", "B"});
  const std::string engineNodeArg = fusedStep ? "node:advance_engine" : "node:";
  if (fusedStep) {
    buffer("step_counters", I, {"2"});
    buffer("memo_table", I,
           {"MEMO", std::to_string(proofc_abi::memoEntryWords(
                        static_cast<int>(s.A)))}); // memo.cu's kEntryWords
    buffer("memo_claims", I, {"B"});
  }

  // The AtomEmbed linear folded into per-position tables (HostPolicy's).
  const int64_t d = s.d;
  auto fold = [&](const std::string &dst, const std::string &table,
                  int64_t colBegin, const std::string &bias,
                  std::vector<std::string> rows) {
    PrologueOp op;
    op.op = "fold_columns";
    op.dst = dst;
    op.table = table;
    op.weight = "atom.weight";
    op.bias = bias;
    op.colBegin = colBegin;
    op.cols = d;
    plan.prologue.push_back(op);
    rows.push_back("d");
    buffer(dst, F, rows, "weights:" + dst);
  };
  fold("pred_proj", "pred_emb", 0, "atom.bias", {"R2"});
  fold("arg0_const", "const_emb", d, "", {"E"});
  fold("arg1_const", "const_emb", 2 * d, "", {"E"});
  fold("arg0_var", "var_emb", d, "", {"A2"});
  fold("arg1_var", "var_emb", 2 * d, "", {"A2"});
  std::vector<std::string> layerArgs;
  for (int l = 0; l < 2; ++l) {
    const std::string p = "mlp." + std::to_string(l);
    for (const char *suffix : {".weight", ".bias", ".ln.weight", ".ln.bias"}) {
      const std::string name = p + suffix;
      std::string buf = "w_" + name;
      for (char &c : buf)
        if (c == '.')
          c = '_';
      buffer(buf, F,
             std::string(suffix) == ".weight"
                 ? std::vector<std::string>{"d", "d"}
                 : std::vector<std::string>{"d"},
             "weights:" + name);
      layerArgs.push_back("buf:" + buf);
    }
  }

  auto launch = [&](const std::string &name, const std::string &module,
                    const std::string &entry, std::vector<std::string> grid,
                    int32_t block, std::vector<std::string> args) {
    // The hand-written policy kernel is "score"; the others are named as
    // their role.
    LaunchRole role =
        name == "score" ? LaunchRole::Policy : *launchRoleNamed(name);
    plan.launches.push_back(
        {name, module, entry, Extent{std::move(grid)}, block, 0, args, role});
  };
  // Three blocks of four threads: several blocks, and fewer threads than
  // slots from B = 13 on (nations' 16), so that every slot is reached only
  // through step.cu's grid-stride loop (the compiler launches a thread a
  // slot, in blocks of 256).
  launch("init", "step", "proofc_init", {"3"}, 4,
         {"buf:pool", "sym:N", "sym:B", "buf:state", "buf:slot_cand",
          "buf:depth", "buf:logp", "buf:next_cand", "buf:engine_flag",
          "buf:loop_flag", fusedStep ? "cond:loop" : "cond:engine", "cond:loop",
          "i32:" + std::to_string(policyParts), "buf:policy_grid",
          "buf:policy_list", policyNodeArg, "buf:engine_grid",
          "buf:engine_list", engineNodeArg});
  // The knowledge base's buffers, in the engine kernels' argument order.
  std::vector<std::string> kbArgs;
  for (const BufferTable &t : kKbTables)
    kbArgs.push_back("buf:" + std::string(t.buffer));
  // The pool's counter and outcomes (its tables after the triples), then
  // the recorded actions and their row count: kernel_abi.h's OUTCOME_ARGS.
  std::vector<std::string> outcomeArgs;
  for (const BufferTable &t : kPoolTables)
    if (t.binding != binding::kPoolTriples)
      outcomeArgs.push_back("buf:" + std::string(t.buffer));
  for (const BufferTable &t : kActionsTables)
    outcomeArgs.push_back("buf:" + std::string(t.buffer));
  outcomeArgs.push_back("sym:ACTIONS");
  std::vector<std::string> engineArgs = {"buf:engine_flag", "buf:state",
                                         "buf:slot_cand", "buf:pool"};
  engineArgs.insert(engineArgs.end(), kbArgs.begin(), kbArgs.end());
  for (const char *a : {"sym:E", "sym:R", "buf:derived", "buf:count"})
    engineArgs.push_back(a);
  launch("engine", "engine", "proofc_engine", {"B"}, engineThreads, engineArgs);
  std::vector<std::string> scoreArgs = {
      "buf:loop_flag", "buf:state",     "buf:derived",    "buf:count",
      "buf:slot_cand", "buf:pred_proj", "buf:arg0_const", "buf:arg1_const",
      "buf:arg0_var",  "buf:arg1_var"};
  scoreArgs.insert(scoreArgs.end(), layerArgs.begin(), layerArgs.end());
  for (std::string a :
       {std::string("sym:R"), fmt::format("f32:{}", program.policy.scoreScale),
        std::string("buf:action"), std::string("buf:action_logp")})
    scoreArgs.push_back(a);
  launch("score", "policy", "proofc_policy", {"B"}, s.d, scoreArgs);
  plan.schedule.setup = {ScheduleNode{"init", "", "", {}}};
  plan.schedule.loopFlag = "loop_flag";
  plan.schedule.loopCond = "loop";
  if (fusedStep) {
    std::vector<std::string> args = {
        "buf:loop_flag", "buf:pool",   "sym:N",           "sym:D",
        "sym:R",         "buf:action", "buf:action_logp", "buf:state",
        "buf:slot_cand", "buf:depth",  "buf:logp"};
    args.insert(args.end(), outcomeArgs.begin(), outcomeArgs.end());
    args.insert(args.end(), kbArgs.begin(), kbArgs.end());
    for (const char *a :
         {"sym:E", "buf:derived", "buf:count", "buf:memo_table",
          "buf:memo_claims", "sym:MEMO", "buf:step_counters", "buf:engine_flag",
          "buf:loop_flag", "cond:loop", "cond:loop"})
      args.push_back(a);
    for (const std::string &a :
         {"i32:" + std::to_string(childrenPerPart),
          std::string("buf:policy_grid"), std::string("buf:policy_list"),
          policyNodeArg, std::string("sym:B"), std::string("buf:engine_grid"),
          std::string("buf:engine_list"), engineNodeArg})
      args.push_back(a);
    launch("advance_engine", "step", "proofc_advance_engine", {"B"},
           engineThreads, args);
    // The engine of the first state: after init, guarded like the step.
    plan.schedule.setup.push_back(ScheduleNode{"engine", "", "", {}});
    plan.schedule.step = {ScheduleNode{"score", "", "", {}},
                          ScheduleNode{"advance_engine", "", "", {}}};
    return bundle;
  }
  std::vector<std::string> advanceArgs = {
      "buf:loop_flag", "buf:pool",        "sym:N",       "sym:B",
      "sym:D",         "sym:R",           "buf:derived", "buf:count",
      "buf:action",    "buf:action_logp", "buf:state",   "buf:slot_cand",
      "buf:depth",     "buf:logp"};
  advanceArgs.insert(advanceArgs.end(), outcomeArgs.begin(), outcomeArgs.end());
  for (const char *a :
       {"buf:engine_flag", "buf:loop_flag", "cond:engine", "cond:loop"})
    advanceArgs.push_back(a);
  launch("advance", "step", "proofc_advance", {"1"}, 256, advanceArgs);
  ScheduleNode engineCond;
  engineCond.cond = "engine";
  engineCond.flag = "engine_flag";
  engineCond.body = {ScheduleNode{"engine", "", "", {}}};
  plan.schedule.step = {engineCond, ScheduleNode{"score", "", "", {}},
                        ScheduleNode{"advance", "", "", {}}};
  return bundle;
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_TESTBUNDLE_H
