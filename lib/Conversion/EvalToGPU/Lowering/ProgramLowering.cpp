//===- ProgramLowering.cpp - the walk over a planned program
//----------------===//
//
// run(): the checks a planned program must pass (one device loop, at most
// one engine cond on the loop's flag, the fused step and the persistent
// policy where the options ask for them), the CUDA C++ modules (step.cu,
// slot.cu), then each block's ops in order, loops and conds as
// eval.launch_loop / eval.launch_cond around their lowered bodies, the
// scratch buffers the launches declare, and each module's list of the
// entries launched from it.
//
//===----------------------------------------------------------------------===//
#include "ProgramLowering.h"

#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"
#include "proofc/contract/kernel_abi.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::lowering;

LogicalResult ProgramLowering::run() {
  auto loops =
      llvm::to_vector(program.getBody().front().getOps<DeviceLoopOp>());
  if (loops.size() != 1 || program.getBody().front().getOps<BufferOp>().empty())
    return program.emitOpError(
        "eval-lower-to-gpu needs a planned program (run eval-fuse-step and "
        "eval-plan-buffers first)");
  DeviceLoopOp loop = loops.front();
  FailureOr<SmallVector<BufferOp>> loopFlag =
      getValueBuffers(loop.getFlag(), loop);
  if (failed(loopFlag))
    return failure();
  loopFlagBuffer = (*loopFlag)[0];
  if (failed(findEngineCond(loop)))
    return failure();
  if (options.fuseAdvanceEngine)
    findFusableCond(loop);
  if (options.schedule != "step" && options.schedule != "persistent")
    return program.emitOpError()
           << "eval-lower-to-gpu: unknown schedule '" << options.schedule
           << "' (step, persistent or auto)";
  if (persistent()) {
    FailureOr<ScoreSelectOp> score =
        checkPersistent(loop, "schedule=persistent");
    if (failed(score))
      return failure();
    persistentScore = *score;
  }
  if (handsOffTail()) {
    if (!resizesEngineGrid())
      return loop.emitOpError()
             << "eval-lower-to-gpu: tail-handoff=" << options.tailHandoff
             << " needs the advance-engine's list of the slots still active "
                "(B >= 8192; 0: no hand-off)";
    FailureOr<ScoreSelectOp> score = checkPersistent(loop, "tail-handoff");
    if (failed(score))
      return failure();
    tailScore = *score;
  }

  if (options.advanceInPolicy) {
    if (!hasFusedAdvanceModule())
      return loop.emitOpError()
             << "eval-lower-to-gpu: advance-in-policy needs the step "
                "schedule's fused advance-engine ("
             << (persistent() ? "not schedule=persistent"
                              : "fuse-advance-engine and a fusable cond")
             << ")";
    if (!choosePolicyGridResize(program.getBAttr().getInt()))
      return loop.emitOpError()
             << "eval-lower-to-gpu: advance-in-policy needs the step policy "
                "grid's list (B >= 1024), B is "
             << program.getBAttr().getInt();
    FailureOr<ScoreSelectOp> score = checkPersistent(loop, "advance-in-policy");
    if (failed(score))
      return failure();
    policyAdvanceScore = *score;
  }

  declareModules();
  for (LaunchOp launch : program.getBody().front().getOps<LaunchOp>())
    launchNames.insert(launch.getName());
  if (failed(lowerBlock(program.getBody().front(), loopFlagBuffer)))
    return failure();
  // The value-level ops are replaced; erase them users first.
  for (Operation *op : llvm::reverse(toErase)) {
    op->dropAllUses();
    op->erase();
  }
  finishPolicyGrid();
  finishEngineGrid();
  listModuleEntries();
  return checkKernelAbi();
}

void ProgramLowering::listModuleEntries() {
  // Each loaded CUDA C++ module defines only the entries the plan launches
  // from it (kernel_abi.h's PROOFC_HAS_ENTRY): NVRTC would compile the
  // others too, in the cold start's critical path.
  llvm::MapVector<StringRef, llvm::SetVector<StringRef>> entries;
  program.walk([&](LaunchOp launch) {
    entries[launch.getKernel().getRootReference().getValue()].insert(
        launch.getKernel().getLeafReference().getValue());
  });
  Builder builder(program.getContext());
  for (CudaModuleOp module : program.getBody().front().getOps<CudaModuleOp>()) {
    auto it = entries.find(module.getSymName());
    if (module.getLinkInto() || it == entries.end())
      continue;
    SmallVector<Attribute> opts(module.getOptions().getValue());
    opts.push_back(builder.getStringAttr(proofc_abi::kEntriesListedOption));
    for (StringRef entry : it->second)
      opts.push_back(builder.getStringAttr(
          std::string(proofc_abi::kEntryOptionPrefix) + entry.str()));
    module.setOptionsAttr(builder.getArrayAttr(opts));
  }
}

LogicalResult ProgramLowering::findEngineCond(DeviceLoopOp loop) {
  engineCond = kLoopCond.str();
  SmallVector<CondOp> conds;
  program.walk([&](CondOp cond) { conds.push_back(cond); });
  for (CondOp cond : conds) {
    if (cond.getName() == kLoopCond)
      return cond.emitOpError()
             << "the cond name '" << kLoopCond << "' is the proof loop's";
    FailureOr<SmallVector<BufferOp>> flag =
        getValueBuffers(cond.getFlag(), cond);
    if (failed(flag))
      return failure();
    if ((*flag)[0] != loopFlagBuffer)
      return cond.emitOpError("eval-lower-to-gpu: a cond's flag must be "
                              "the loop's (the kernels set two handles: "
                              "the engine cond's and the loop's)");
    if (engineCond != kLoopCond)
      return cond.emitOpError("eval-lower-to-gpu: at most one cond besides "
                              "the loop");
    engineCond = cond.getName().str();
  }
  return success();
}

void ProgramLowering::findFusableCond(DeviceLoopOp loop) {
  for (AdvanceOp advance : loop.getBody().front().getOps<AdvanceOp>()) {
    auto cond = dyn_cast_or_null<CondOp>(advance->getNextNode());
    if (!cond || cond.getFlag() != advance.getActive())
      continue;
    Block &body = cond.getBody().front();
    auto engine = dyn_cast<EngineOp>(body.front());
    if (!engine || body.getOperations().size() != 2 ||
        engine.getSlots() != advance.getResult())
      continue;
    fusedAdvance = advance;
    fusedCond = cond;
    engineCond = kLoopCond.str();
    return;
  }
}

FailureOr<ScoreSelectOp> ProgramLowering::checkPersistent(DeviceLoopOp loop,
                                                          StringRef what) {
  auto fail = [&](Operation *at, const Twine &why) {
    return at->emitOpError() << "eval-lower-to-gpu: " << what << " " << why;
  };
  if (!fusedAdvance)
    return fail(loop, "needs the fused step (an eval.advance followed by "
                      "the engine cond, with fuse-advance-engine; in "
                      "proofc compile, no --unfused-step)");
  auto scores = llvm::to_vector(loop.getBody().front().getOps<ScoreSelectOp>());
  if (scores.size() != 1 || scores.front()->getNextNode() != fusedAdvance)
    return fail(loop, "needs the loop's one eval.score_select right "
                      "before the fused eval.advance");
  ScoreSelectOp score = scores.front();
  auto same = [&](Value x, Value y) {
    FailureOr<SmallVector<BufferOp>> bx = buffers(x, score);
    FailureOr<SmallVector<BufferOp>> by = buffers(y, fusedAdvance);
    return succeeded(bx) && succeeded(by) && *bx == *by;
  };
  if (!same(score.getAction(), fusedAdvance.getAction()) ||
      !same(score.getLogp(), fusedAdvance.getLogp()) ||
      !same(score.getDerived(), fusedAdvance.getDerived()) ||
      !same(score.getSlots(), fusedAdvance.getSlots()))
    return fail(score, "needs the policy and the advance on the same "
                       "buffers (run eval-plan-buffers)");
  return score;
}

void ProgramLowering::declareModules() {
  OpBuilder builder(program.getContext());
  Block &block = program.getBody().front();
  auto buffers = llvm::to_vector(block.getOps<BufferOp>());
  builder.setInsertionPointAfter(buffers.back());
  Location loc = program.getLoc();
  std::string A = "-DPROOFC_A=" + std::to_string(program.getAAttr().getInt());
  std::string S = "-DPROOFC_S=" + std::to_string(program.getSAttr().getInt());
  std::string threads =
      "-DPROOFC_ENGINE_THREADS=" + std::to_string(options.engineThreads);
  // step.cu (which includes engine.cu) for the setup and the step. The
  // step schedule's fused advance-engine kernel is a second module of the
  // same source: NVRTC compiles each loaded module in its own thread, and
  // either half is about as long as the policy's JIT (listModuleEntries
  // gives each module only its own entries).
  CudaModuleOp::create(builder, loc, "step", "step.cu",
                       builder.getStrArrayAttr({A, S, threads}),
                       FlatSymbolRefAttr());
  if (hasFusedAdvanceModule()) {
    SmallVector<std::string> advanceOptions = {A, S, threads};
    if (options.engineMaxRegisters > 0)
      advanceOptions.push_back(registerCapOption(options.engineMaxRegisters));
    if (options.memoMaxWaits > 0)
      advanceOptions.push_back(proofc_abi::kMemoWaitsOptionPrefix +
                               std::to_string(options.memoMaxWaits));
    if (resizesEngineGrid())
      advanceOptions.push_back(proofc_abi::kEngineListOption);
    if (handsOffTail())
      advanceOptions.push_back(proofc_abi::kTailHandoffOptionPrefix +
                               std::to_string(options.tailHandoff));
    SmallVector<StringRef> refs(advanceOptions.begin(), advanceOptions.end());
    CudaModuleOp::create(builder, loc, kAdvanceModule, "step.cu",
                         builder.getStrArrayAttr(refs), FlatSymbolRefAttr());
  }
  // The persistent kernel's advance-and-derive (the persistent schedule's
  // or the tail hand-off's): relocatable code linked into the gpu.module;
  // deriveSlot's items are one per policy thread, so its threads are set
  // once the policy kernel's block is known.
  if (handsOffTail()) {
    // The tail's module: the policy module's target, a name of its own.
    OpBuilder after(gpuModule);
    after.setInsertionPointAfter(gpuModule);
    std::string name = gpuModule.getSymName().str() + "_tail";
    auto parent = gpuModule->getParentOfType<ModuleOp>();
    for (int n = 1; SymbolTable::lookupSymbolIn(parent, name); ++n)
      name = gpuModule.getSymName().str() + "_tail_" + std::to_string(n);
    tailModule =
        gpu::GPUModuleOp::create(after, loc, name, gpuModule.getTargetsAttr());
  }
  // The advance in the policy: the advance-engine module's memo waits and
  // hand-off.
  if (advancesInPolicy()) {
    SmallVector<std::string> policyAdvanceOptions = {
        A, S, std::string(proofc_abi::kAdvanceInPolicyOption)};
    if (options.memoMaxWaits > 0)
      policyAdvanceOptions.push_back(proofc_abi::kMemoWaitsOptionPrefix +
                                     std::to_string(options.memoMaxWaits));
    if (handsOffTail())
      policyAdvanceOptions.push_back(proofc_abi::kTailHandoffOptionPrefix +
                                     std::to_string(options.tailHandoff));
    SmallVector<StringRef> refs(policyAdvanceOptions.begin(),
                                policyAdvanceOptions.end());
    policyAdvanceModule = CudaModuleOp::create(
        builder, loc, "policy_advance", "slot.cu",
        builder.getStrArrayAttr(refs),
        FlatSymbolRefAttr::get(builder.getContext(), gpuModule.getSymName()));
  }
  if (persistent() || handsOffTail())
    slotModule = CudaModuleOp::create(
        builder, loc, "slot", "slot.cu", builder.getStrArrayAttr({A, S}),
        FlatSymbolRefAttr::get(
            builder.getContext(),
            (tailModule ? tailModule : gpuModule).getSymName()));
}

std::string ProgramLowering::uniqueName(StringRef base) {
  std::string name = base.str();
  for (int n = 1; !launchNames.insert(name).second; ++n)
    name = base.str() + "_" + std::to_string(n);
  return name;
}

LogicalResult ProgramLowering::lowerBlock(Block &block, BufferOp guard) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    OpBuilder builder(&op);
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](InitSlotsOp init) { return lowerInit(builder, init); })
            .Case([&](EngineOp engine) {
              return lowerEngine(builder, engine, guard);
            })
            .Case([&](ScoreSelectOp score) {
              return lowerScore(builder, score, guard);
            })
            .Case([&](AdvanceOp advance) {
              if (advance == fusedAdvance)
                return lowerAdvanceEngine(builder, advance, guard);
              return lowerAdvance(builder, advance, guard);
            })
            .Case([&](CopyOp copy) { return lowerCopy(builder, copy, guard); })
            .Case([&](DeviceLoopOp loop) { return lowerLoop(builder, loop); })
            .Case([&](CondOp cond) {
              if (cond == fusedCond) { // lowered with the advance
                toErase.push_back(cond);
                return success();
              }
              return lowerCond(builder, cond);
            })
            .Case<KnowledgeBaseOp, CandidatePoolOp, DeviceYieldOp, CondYieldOp>(
                [&](Operation *valueOp) {
                  toErase.push_back(valueOp);
                  return success();
                })
            .Default([](Operation *) { return success(); });
    if (failed(result))
      return failure();
  }
  return success();
}

LogicalResult ProgramLowering::checkLoopFlag(Operation *op, BufferOp flag) {
  if (flag == loopFlagBuffer)
    return success();
  return op->emitOpError() << "eval-lower-to-gpu: its flag must be the "
                              "loop's buffer "
                           << loopFlagBuffer.getSymNameAttr();
}

std::string ProgramLowering::addScratchBuffer(StringRef base, Type dtype,
                                              ArrayRef<StringRef> elements,
                                              StringRef init) {
  Block &block = program.getBody().front();
  std::string name = base.str();
  for (int n = 1; SymbolTable::lookupSymbolIn(program, name); ++n)
    name = base.str() + "_" + std::to_string(n);
  OpBuilder builder(program.getContext());
  builder.setInsertionPointAfter(
      llvm::to_vector(block.getOps<BufferOp>()).back());
  BufferOp::create(builder, program.getLoc(), name, dtype,
                   builder.getStrArrayAttr(elements), init);
  return name;
}

LogicalResult ProgramLowering::lowerLoop(OpBuilder &builder,
                                         DeviceLoopOp loop) {
  auto flag = buffers(loop.getFlag(), loop);
  if (failed(flag))
    return failure();
  auto lowered = LaunchLoopOp::create(builder, loop.getLoc(), kLoopCond,
                                      (*flag)[0].getSymName());
  Block *body = new Block();
  lowered.getBody().push_back(body);
  body->getOperations().splice(body->end(),
                               loop.getBody().front().getOperations());
  toErase.push_back(loop);
  if (failed(lowerBlock(*body, (*flag)[0])))
    return failure();
  // The tail hand-off: once, after the loop (the builder is past the
  // lowered loop), on the slots the hand-off step listed.
  if (tailKernel)
    launch(builder, loop.getLoc(), proofc::LaunchRole::Persistent, "tail",
           kernelRef(tailModule.getSymName(), tailKernel->func.getName()),
           tailKernel->grid, tailKernel->block, tailKernel->args,
           tailKernel->sharedBytes);
  return success();
}

LogicalResult ProgramLowering::lowerCond(OpBuilder &builder, CondOp cond) {
  auto flag = buffers(cond.getFlag(), cond);
  if (failed(flag))
    return failure();
  auto lowered = LaunchCondOp::create(builder, cond.getLoc(), cond.getName(),
                                      (*flag)[0].getSymName());
  Block *body = new Block();
  lowered.getBody().push_back(body);
  body->getOperations().splice(body->end(),
                               cond.getBody().front().getOperations());
  toErase.push_back(cond);
  return lowerBlock(*body, (*flag)[0]);
}
