//===- Launches.cpp - one launch an op
//--------------------------------------===//
//
// Each op's eval.launch: init, engine, the policy kernel (or the
// persistent one, with slot.cu's options: its threads and its register
// cap), advance, the fused advance-engine (or, after the persistent
// kernel, finish) and the copies. The argument lists come from
// LaunchArguments.cpp.
//
//===----------------------------------------------------------------------===//
#include "ProgramLowering.h"

#include "CopyKernel.h"
#include "PolicyKernel.h"

#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

#include <tuple>

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::lowering;

LaunchOp ProgramLowering::launch(OpBuilder &builder, Location loc,
                                 proofc::LaunchRole role, StringRef base,
                                 SymbolRefAttr kernel,
                                 ArrayRef<std::string> grid, int64_t block,
                                 ArrayRef<std::string> args,
                                 int64_t sharedBytes) {
  SmallVector<StringRef> gridRefs(grid.begin(), grid.end());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string_view roleName = proofc::launchRoleName(role);
  return LaunchOp::create(
      builder, loc, uniqueName(base),
      StringRef(roleName.data(), roleName.size()), kernel,
      builder.getStrArrayAttr(gridRefs), static_cast<uint32_t>(block),
      static_cast<uint32_t>(sharedBytes), builder.getStrArrayAttr(argRefs));
}

SymbolRefAttr ProgramLowering::kernelRef(StringRef module, StringRef entry) {
  MLIRContext *ctx = program.getContext();
  return SymbolRefAttr::get(ctx, module, {FlatSymbolRefAttr::get(ctx, entry)});
}

LogicalResult ProgramLowering::lowerInit(OpBuilder &builder, InitSlotsOp init) {
  auto pool = buffers(init.getPool(), init);
  auto slots = buffers(init.getSlots(), init);
  auto flag = buffers(init.getActive(), init);
  if (failed(pool) || failed(slots) || failed(flag) ||
      failed(checkLoopFlag(init, (*flag)[0])))
    return failure();
  SmallVector<std::string> args = {bufArg((*pool)[0]), "sym:N", "sym:B"};
  for (BufferOp b : *slots)
    args.push_back(bufArg(b));
  args.push_back(bufArg((*pool)[1])); // next_cand
  llvm::append_range(args, flagArgs((*flag)[0]));
  // A thread a slot (step.cu's proofc_init takes any grid): one block of
  // 256 threads took 122 us for B = 8192's slots on an H200, each thread
  // writing 32 slots' states in turn (docs/performance.md, row 43).
  // B >= 1 (ProgramOp's verifier), so at least one block.
  const int64_t initBlocks =
      llvm::divideCeil(program.getBAttr().getInt(), kStepThreads);
  initLaunch = launch(builder, init.getLoc(), proofc::LaunchRole::Init, "init",
                      kernelRef("step", "proofc_init"),
                      {std::to_string(initBlocks)}, kStepThreads, args);
  toErase.push_back(init);
  return success();
}

LogicalResult ProgramLowering::lowerEngine(OpBuilder &builder, EngineOp engine,
                                           BufferOp guard) {
  auto kb = buffers(engine.getKb(), engine);
  auto slots = buffers(engine.getSlots(), engine);
  auto pool = buffers(engine.getPool(), engine);
  auto derived = buffers(engine.getDerived(), engine);
  if (failed(kb) || failed(slots) || failed(pool) || failed(derived))
    return failure();
  SmallVector<std::string> args = {bufArg(guard), bufArg((*slots)[0]),
                                   bufArg((*slots)[1]), bufArg((*pool)[0])};
  for (BufferOp b : *kb)
    args.push_back(bufArg(b));
  llvm::append_range(args, SmallVector<std::string>{"sym:E", "sym:R",
                                                    bufArg((*derived)[0]),
                                                    bufArg((*derived)[1])});
  launch(builder, engine.getLoc(), proofc::LaunchRole::Engine, "engine",
         kernelRef("step", "proofc_engine"), {"B"}, options.engineThreads,
         args);
  // The advance in the policy: the first derive's slots listed for the
  // first step (the policy grid's arguments follow in finishPolicyGrid).
  if (advancesInPolicy() && !listSlotsLaunch)
    listSlotsLaunch = launch(
        builder, engine.getLoc(), proofc::LaunchRole::AdvanceEngine,
        "list_slots", kernelRef(kAdvanceModule, "proofc_list_slots"), {"1"},
        kListThreads,
        {bufArg(guard), bufArg((*derived)[1]), bufArg((*slots)[1]), "sym:B"});
  toErase.push_back(engine);
  return success();
}

LogicalResult ProgramLowering::lowerScore(OpBuilder &builder,
                                          ScoreSelectOp score, BufferOp guard) {
  // The kernel's entry is proofc_policy, as the CUDA C++ kernels' are
  // proofc_*; its launch and scratch buffers keep the op's name.
  std::string entry = "proofc_policy", name = "score_select";
  for (int n = 1; SymbolTable::lookupSymbolIn(gpuModule, entry); ++n) {
    entry = "proofc_policy_" + std::to_string(n);
    name = "score_select_" + std::to_string(n);
  }
  SmallVector<std::string> slotArgs;
  std::string logits, arrivals;
  const bool advances = score == policyAdvanceScore;
  if (score == persistentScore) {
    FailureOr<SmallVector<std::string>> args = slotStepArgs();
    if (failed(args))
      return failure();
    slotArgs = std::move(*args);
  } else {
    if (advances) {
      FailureOr<SmallVector<std::string>> args = policyAdvanceArgs();
      if (failed(args))
        return failure();
      slotArgs = std::move(*args);
    }
    // The kernel's scratch: the logits rows its blocks meet in and their
    // arrival counts (zero-filled once; the last block re-zeroes its
    // slot's). The persistent kernel's block is its slot's only one.
    logits =
        addScratchBuffer(name + "_logits", builder.getF32Type(), {"B", "S"});
    arrivals =
        addScratchBuffer(name + "_arrivals", builder.getI32Type(), {"B"});
  }
  // Where the advance-engine resizes the step policy's grid
  // (choosePolicyGridResize), every step policy kernel reads the one grid
  // it sizes (a larger grid than a step needs is correct: its extra
  // blocks return); the node it resizes is the first's.
  const bool stepForm = slotArgs.empty() || advances;
  const bool resize =
      stepForm && choosePolicyGridResize(program.getBAttr().getInt());
  std::string gridBuffer, listBuffer;
  if (resize)
    std::tie(gridBuffer, listBuffer) = policyGridBuffers();
  FailureOr<PolicyKernel> kernel = buildPolicyKernel(
      score, gpuModule, entry, guard.getSymName(), options.groups,
      options.statesPerThread, options.minBlocksPerSm, logits, arrivals,
      gridBuffer, listBuffer, chipLimits().maxSharedPerBlock, slotArgs,
      advances);
  if (failed(kernel))
    return failure();
  SmallVector<std::string> grid(kernel->grid.begin(), kernel->grid.end());
  LaunchOp policy = launch(builder, score.getLoc(),
                           stepForm ? proofc::LaunchRole::Policy
                                    : proofc::LaunchRole::Persistent,
                           stepForm ? "score_select" : "persistent",
                           kernelRef(gpuModule.getSymName(), entry), grid,
                           kernel->block, kernel->args, kernel->sharedBytes);
  if (stepForm)
    policyListParts = std::max(policyListParts, kernel->parts);
  if (stepForm && !policyGridKnown) {
    policyGridKnown = true;
    policyParts = kernel->parts;
    policyChildrenPerPart = kernel->childrenPerPart;
    if (resize)
      policyLaunch = policy.getName().str();
  }
  if (!slotArgs.empty()) {
    if (failed(checkSlotBlock(score, kernel->block)))
      return failure();
    setSlotModuleOptions(advances ? policyAdvanceModule : slotModule,
                         kernel->block, options.minBlocksPerSm);
  }
  if (score == tailScore && failed(buildTailKernel(score)))
    return failure();
  toErase.push_back(score);
  return success();
}

void ProgramLowering::setSlotModuleOptions(CudaModuleOp module, int64_t threads,
                                           int64_t minBlocksPerSm) {
  Builder builder(program.getContext());
  SmallVector<Attribute> opts(module.getOptions().getValue());
  opts.push_back(builder.getStringAttr("-DPROOFC_ENGINE_THREADS=" +
                                       std::to_string(threads)));
  // The linker refuses a callee that may use more registers than the
  // kernel's cap (the SM's registers over its blocks' threads, in 8s).
  if (minBlocksPerSm > 0)
    opts.push_back(builder.getStringAttr(registerCapOption(
        chipLimits().registersPerThread(minBlocksPerSm, threads))));
  module.setOptionsAttr(builder.getArrayAttr(opts));
}

LogicalResult ProgramLowering::buildTailKernel(ScoreSelectOp score) {
  FailureOr<SmallVector<std::string>> slotArgs = slotStepArgs();
  if (failed(slotArgs))
    return failure();
  // The persistent schedule's own choices (GpuHeuristics.h), whatever the
  // step policy's options: its block holds a slot's S children.
  const StringRef matmul = plannedMatmul(program);
  const bool tensorCores = onTensorCores(matmul);
  const int64_t B = program.getBAttr().getInt();
  const int64_t minBlocksPerSm = chooseMinBlocksPerSm(
      matmul, B, "persistent", plansAtomLayerTable(program));
  const auto &[words, list] = engineGridBuffers();
  // The guard is the list's count (EngineGridWord's first): a tail with no
  // slot listed runs no block.
  FailureOr<PolicyKernel> kernel =
      buildPolicyKernel(score, tailModule, "proofc_policy_tail", words,
                        chooseGroups(tensorCores, B, "persistent"),
                        options.statesPerThread, minBlocksPerSm, "", "", words,
                        list, chipLimits().maxSharedPerBlock, *slotArgs);
  if (failed(kernel) || failed(checkSlotBlock(score, kernel->block)))
    return failure();
  setSlotModuleOptions(slotModule, kernel->block, minBlocksPerSm);
  tailKernel = std::move(*kernel);
  return success();
}

LogicalResult ProgramLowering::checkSlotBlock(ScoreSelectOp score,
                                              int64_t threads) {
  if (!llvm::isPowerOf2_64(threads))
    return score.emitOpError()
           << "eval-lower-to-gpu: the persistent kernel's block of " << threads
           << " threads also derives its slot, which needs a "
           << "power of two of threads; change --groups or "
           << "--states-per-thread, or use --schedule step";
  return success();
}

LogicalResult ProgramLowering::lowerAdvance(OpBuilder &builder,
                                            AdvanceOp advance, BufferOp guard) {
  FailureOr<AdvanceBuffers> a = advanceBuffers(advance);
  if (failed(a))
    return failure();
  SmallVector<std::string> args = {bufArg(guard),
                                   bufArg(a->pool[0]),
                                   "sym:N",
                                   "sym:B",
                                   maxDepthArg(advance),
                                   "sym:R",
                                   bufArg(a->derived[0]),
                                   bufArg(a->derived[1]),
                                   bufArg(a->action[0]),
                                   bufArg(a->logp[0])};
  appendSlotsAndOutcomes(args, *a);
  llvm::append_range(args, flagArgs(a->flag[0]));
  launch(builder, advance.getLoc(), proofc::LaunchRole::Advance, "advance",
         kernelRef("step", "proofc_advance"), {"1"}, kStepThreads, args);
  toErase.push_back(advance);
  return success();
}

LogicalResult ProgramLowering::lowerAdvanceEngine(OpBuilder &builder,
                                                  AdvanceOp advance,
                                                  BufferOp guard) {
  FailureOr<AdvanceBuffers> a = advanceBuffers(advance);
  auto engine = cast<EngineOp>(fusedCond.getBody().front().front());
  auto kb = buffers(engine.getKb(), engine);
  auto derived = buffers(engine.getDerived(), engine);
  if (failed(a) || failed(kb) || failed(derived))
    return failure();
  if (*derived != a->derived)
    return engine.emitOpError("eval-lower-to-gpu: the engine must derive "
                              "into the buffers the advance reads (run "
                              "eval-plan-buffers)");
  if (persistentScore) {
    // The persistent kernel before it has advanced and derived every slot
    // to the end of the pool: the loop ends.
    launch(builder, advance.getLoc(), proofc::LaunchRole::Finish, "finish",
           kernelRef("step", "proofc_finish"), {"1"}, kWarpThreads,
           {bufArg(a->flag[0]), "cond:" + kLoopCond.str()});
    toErase.push_back(advance);
    return success();
  }
  const std::string &counters = stepCounters();
  if (advancesInPolicy()) {
    // The policy launch before it advanced, derived and listed the slots
    // (slot.cu's proofc_policy_advance): one thread ends the step.
    const auto &[words, list] = policyGridBuffers();
    SmallVector<std::string> args = {bufArg(guard), "buf:" + counters};
    llvm::append_range(args, flagArgs(a->flag[0]));
    llvm::append_range(
        args, SmallVector<std::string>{"buf:" + words, "buf:" + list,
                                       "node:" + policyLaunch, "sym:B",
                                       "buf:" + engineGridBuffers().first});
    launch(builder, advance.getLoc(), proofc::LaunchRole::AdvanceEngine,
           "step_end", kernelRef(kAdvanceModule, "proofc_step_end"), {"1"},
           kWarpThreads, args);
    toErase.push_back(advance);
    return success();
  }
  SmallVector<std::string> args = {bufArg(guard)};
  llvm::append_range(args, advanceEngineArgs(advance, *a, *kb));
  args.push_back("buf:" + counters);
  llvm::append_range(args, flagArgs(a->flag[0]));
  advanceEngineLaunches.push_back(launch(
      builder, advance.getLoc(), proofc::LaunchRole::AdvanceEngine,
      "advance_engine", kernelRef(kAdvanceModule, "proofc_advance_engine"),
      {"B"}, options.engineThreads, args));
  toErase.push_back(advance);
  return success();
}

const std::pair<std::string, std::string> &
ProgramLowering::policyGridBuffers() {
  if (policyGridNames.first.empty()) {
    Type i32 = IntegerType::get(program.getContext(), 32);
    std::string words = std::to_string(proofc_abi::kPolicyGridWords);
    // The list's parts a slot are the step policy kernels' most, known
    // once they are built: finishPolicyGrid sets them.
    policyGridNames = {
        addScratchBuffer("policy_grid", i32, {words}),
        addScratchBuffer(
            "policy_list", i32,
            {"B", "1", std::to_string(proofc_abi::kPolicyEntryWords)})};
  }
  return policyGridNames;
}

void ProgramLowering::finishPolicyGrid() {
  const bool nothingSizes = !initLaunch && advanceEngineLaunches.empty();
  if (nothingSizes && policyGridNames.first.empty())
    return;
  const std::string &words = policyGridBuffers().first;
  const std::string &list = policyGridBuffers().second;
  // The list holds a step's every entry: B x parts (kernel_abi.h's
  // PolicyEntryWord), the plan's grid of the step policy kernel with the
  // most parts; each kernel's every-slot blocks read an entry each.
  Builder builder(program.getContext());
  // The advance in the policy lists the next step's entries while the
  // step's blocks still read theirs: two halves (kernel_abi.h's
  // PolicyAdvanceArg, the engine grid's kEngineRead picks).
  SmallVector<StringRef> elements = {"B"};
  std::string parts = std::to_string(policyListParts),
              entryWords = std::to_string(proofc_abi::kPolicyEntryWords);
  if (advancesInPolicy())
    elements.insert(elements.begin(), "2");
  elements.append({parts, entryWords});
  cast<BufferOp>(SymbolTable::lookupSymbolIn(program, list))
      .setElementsAttr(builder.getStrArrayAttr(elements));
  if (nothingSizes)
    return;
  auto append = [&](LaunchOp launch, int64_t value) {
    appendArgs(launch, {"i32:" + std::to_string(value), "buf:" + words,
                        "buf:" + list, "node:" + policyLaunch});
  };
  if (initLaunch)
    append(initLaunch, policyParts);
  if (listSlotsLaunch)
    appendArgs(listSlotsLaunch,
               {"i32:" + std::to_string(policyChildrenPerPart), "buf:" + words,
                "buf:" + list, "node:" + policyLaunch,
                "buf:" + engineGridBuffers().first});
  for (LaunchOp launch : advanceEngineLaunches)
    append(launch, policyChildrenPerPart);
}

bool ProgramLowering::resizesEngineGrid() {
  return hasFusedAdvanceModule() &&
         chooseEngineGridResize(program.getBAttr().getInt());
}

void ProgramLowering::finishEngineGrid() {
  if (!initLaunch && advanceEngineLaunches.empty())
    return;
  // Init resets the words whichever the schedule.
  const auto &[words, list] = engineGridBuffers();
  const bool resize = !advanceEngineLaunches.empty() && resizesEngineGrid();
  // Every advance-engine launch resizes the next of its own launches (the
  // runtime finds it, across the WHILE body's end); init the first.
  std::string first =
      resize ? advanceEngineLaunches.front().getName().str() : "";
  if (initLaunch)
    appendArgs(initLaunch, {"buf:" + words, "buf:" + list, "node:" + first});
  for (LaunchOp launch : advanceEngineLaunches)
    appendArgs(launch,
               {"sym:B", "buf:" + words, "buf:" + list,
                "node:" + (resize ? launch.getName().str() : std::string())});
}

const std::pair<std::string, std::string> &
ProgramLowering::engineGridBuffers() {
  if (engineGridNames.first.empty()) {
    Type i32 = IntegerType::get(program.getContext(), 32);
    // The list holds a step's active slots in each of its two halves
    // (kernel_abi.h's EngineGridWord).
    engineGridNames = {
        addScratchBuffer("engine_grid", i32,
                         {std::to_string(proofc_abi::kEngineGridWords)}),
        addScratchBuffer("engine_list", i32, {"2", "B"})};
  }
  return engineGridNames;
}

void ProgramLowering::appendArgs(LaunchOp launch, ArrayRef<std::string> more) {
  Builder builder(program.getContext());
  SmallVector<Attribute> args(launch.getArgs().getValue());
  for (const std::string &arg : more)
    args.push_back(builder.getStringAttr(arg));
  launch.setArgsAttr(builder.getArrayAttr(args));
}

LogicalResult ProgramLowering::lowerCopy(OpBuilder &builder, CopyOp copy,
                                         BufferOp guard) {
  auto from = buffers(copy.getInput(), copy);
  auto to = buffers(copy.getResult(), copy);
  if (failed(from) || failed(to))
    return failure();
  StringRef entry = getOrCreateCopyKernel(gpuModule, program.getLoc());
  for (auto [src, dst] : llvm::zip(*from, *to)) {
    SmallVector<std::string> args = {bufArg(guard), bufArg(src), bufArg(dst)};
    ArrayAttr elements = src.getElements();
    if (elements.size() > 4)
      return copy.emitOpError("eval-lower-to-gpu: a copied buffer's extent "
                              "has more than 4 factors");
    for (unsigned i = 0; i < 4; ++i) {
      if (i >= elements.size()) {
        args.push_back("i32:1");
        continue;
      }
      StringRef factor = cast<StringAttr>(elements[i]).getValue();
      args.push_back((isExtentSymbol(factor) ? "sym:" : "i32:") + factor.str());
    }
    launch(builder, copy.getLoc(), proofc::LaunchRole::Copy,
           "copy_" + dst.getSymName().str(),
           kernelRef(gpuModule.getSymName(), entry),
           {std::to_string(kCopyBlocks)}, kCopyThreads, args);
  }
  toErase.push_back(copy);
  return success();
}
