//===- LowerToGpu.cpp - eval-lower-to-gpu ---------------------------------===//
//
// A planned program becomes its GPU plan as IR, op for op:
//   eval.init_slots / eval.advance  -> launches of step.cu's proofc_init /
//                                      proofc_advance
//   eval.engine                     -> a launch of proofc_engine (engine.cu,
//                                      which step.cu includes)
//   eval.advance + the engine cond  -> ONE launch of proofc_advance_engine
//                                      (fuse-advance-engine)
//   eval.score_select               -> gpu.func @score_select (PolicyKernel)
//                                      in gpu.module @policy, and its launch
//   with schedule=persistent: the
//   loop's score_select + advance   -> ONE launch of the persistent policy
//   engine                             kernel (each block runs its slot to
//                                      the end; slot.cu linked in), then
//                                      step.cu's proofc_finish
//   eval.copy                       -> launches of gpu.func @copy_words
//   eval.device_loop / eval.cond    -> eval.launch_loop / eval.launch_cond
// Kernels inside a cond or the loop take the innermost flag as their guard;
// those of the prologue after eval.init_slots take the loop's flag, which
// init has written. Arguments follow kernel_abi.h's lists (checked once
// lowered: checkKernelAbi) and docs/gpu-kernels.md.
//
//===----------------------------------------------------------------------===//
#include "PolicyKernel.h"

#include "proofc/Dialect/Eval/Transforms/BufferPlan.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Target/ChipLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#ifndef PROOFC_LIBDEVICE
#define PROOFC_LIBDEVICE "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace mlir::eval {
#define GEN_PASS_DEF_EVALLOWERTOGPUPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

std::string mlir::eval::defaultLibdevicePath() { return PROOFC_LIBDEVICE; }

namespace {

constexpr StringLiteral kLoopCond = "loop";
constexpr int64_t kStepThreads = 256, kWarpThreads = 32;
constexpr int64_t kCopyThreads = 256, kCopyBlocks = 120;

std::string bufArg(BufferOp buffer) {
  return ("buf:" + buffer.getSymName()).str();
}

/// Lowers one program; owns the names it hands out.
class ProgramLowering {
public:
  ProgramLowering(ProgramOp program, gpu::GPUModuleOp gpuModule,
                  const EvalLowerToGpuPassOptions &options)
      : program(program), gpuModule(gpuModule), options(options) {}

  LogicalResult run() {
    auto loops =
        llvm::to_vector(program.getBody().front().getOps<DeviceLoopOp>());
    if (loops.size() != 1 ||
        program.getBody().front().getOps<BufferOp>().empty())
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
             << "' (step or persistent)";
    if (persistent() && failed(checkPersistent(loop)))
      return failure();

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
    return checkKernelAbi();
  }

private:
  /// Every launch of a kernel template (and the persistent kernel's slot.cu
  /// words) against kernel_abi.h: an argument list built here that the
  /// kernels do not take is an error of this pass, not a crash on a GPU.
  LogicalResult checkKernelAbi() {
    LogicalResult result = success();
    program.walk([&](LaunchOp launch) {
      std::vector<std::string> args;
      for (Attribute a : launch.getArgs())
        args.push_back(cast<StringAttr>(a).getValue().str());
      const int n = static_cast<int>(args.size());
      std::string entry = launch.getKernel().getLeafReference().str();
      const proofc_abi::KernelSignature *sig =
          proofc_abi::findKernel(entry.c_str());
      int first = 0; // the persistent kernel's slot.cu words come last
      if (!sig && launch.getName().starts_with("persistent")) {
        sig = &proofc_abi::kSlotStep;
        first = std::max(n - sig->numArgs, 0);
      }
      if (!sig)
        return;
      const int bad = proofc_abi::firstMismatch(
          *sig, n, first, [&](int i) { return args[i].c_str(); });
      if (bad < 0 && n - first == sig->numArgs)
        return;
      InFlightDiagnostic diag = launch.emitOpError()
                                << "eval-lower-to-gpu: the arguments of "
                                << sig->entry << " disagree with "
                                << "kernel_abi.h (" << sig->numArgs
                                << " expected, " << n - first << " built";
      if (bad >= 0 && bad < sig->numArgs)
        diag << "; '" << sig->names[bad] << "' is not "
             << proofc_abi::kindPrefix(sig->kinds[bad]);
      diag << ")";
      result = failure();
    });
    return result;
  }

  /// The limits of options.chip (checked by the pass before lowering).
  const proofc::ChipLimits &chipLimits() const {
    return *proofc::findChipLimits(options.chip);
  }

  /// The cond sharing the loop's flag: its handle is the kernels' second.
  LogicalResult findEngineCond(DeviceLoopOp loop) {
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

  /// With fuse-advance-engine: the cond right after the loop's eval.advance
  /// that holds only eval.engine of the advanced slots, on the advance's
  /// flag. It becomes part of the advance's launch, and the kernels' engine
  /// handle is the loop's (no IF node is left).
  void findFusableCond(DeviceLoopOp loop) {
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

  bool persistent() const { return options.schedule == "persistent"; }

  /// The persistent kernel replaces exactly the fused step: the loop holds
  /// one eval.score_select, then the fused advance and engine cond, on the
  /// same buffers (it reads its own slot's derived states, writes its own
  /// action, then advances and derives that slot).
  LogicalResult checkPersistent(DeviceLoopOp loop) {
    auto fail = [&](Operation *at, const Twine &why) {
      return at->emitOpError() << "eval-lower-to-gpu: schedule=persistent "
                               << why;
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
    persistentScore = score;
    return success();
  }

  void declareModules() {
    OpBuilder builder(program.getContext());
    Block &block = program.getBody().front();
    auto buffers = llvm::to_vector(block.getOps<BufferOp>());
    builder.setInsertionPointAfter(buffers.back());
    Location loc = program.getLoc();
    std::string A = "-DPROOFC_A=" + std::to_string(program.getAAttr().getInt());
    std::string S = "-DPROOFC_S=" + std::to_string(program.getSAttr().getInt());
    std::string threads =
        "-DPROOFC_ENGINE_THREADS=" + std::to_string(options.engineThreads);
    // One NVRTC compile for every CUDA C++ kernel: step.cu includes engine.cu.
    CudaModuleOp::create(builder, loc, "step", "step.cu",
                         builder.getStrArrayAttr({A, S, threads}),
                         FlatSymbolRefAttr());
    // The persistent kernel's advance-and-derive: relocatable code linked
    // into the gpu.module; deriveSlot's items are one per policy thread,
    // so its threads are set once the policy kernel's block is known.
    if (persistent())
      slotModule = CudaModuleOp::create(
          builder, loc, "slot", "slot.cu", builder.getStrArrayAttr({A, S}),
          FlatSymbolRefAttr::get(builder.getContext(), gpuModule.getSymName()));
  }

  std::string uniqueName(StringRef base) {
    std::string name = base.str();
    for (int n = 1; !launchNames.insert(name).second; ++n)
      name = base.str() + "_" + std::to_string(n);
    return name;
  }

  /// Lowers the ops of `block` in place; `guard` is the innermost flag.
  LogicalResult lowerBlock(Block &block, BufferOp guard) {
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
              .Case(
                  [&](CopyOp copy) { return lowerCopy(builder, copy, guard); })
              .Case([&](DeviceLoopOp loop) { return lowerLoop(builder, loop); })
              .Case([&](CondOp cond) {
                if (cond == fusedCond) { // lowered with the advance
                  toErase.push_back(cond);
                  return success();
                }
                return lowerCond(builder, cond);
              })
              .Case<KnowledgeBaseOp, CandidatePoolOp, DeviceYieldOp,
                    CondYieldOp>([&](Operation *valueOp) {
                toErase.push_back(valueOp);
                return success();
              })
              .Default([](Operation *) { return success(); });
      if (failed(result))
        return failure();
    }
    return success();
  }

  /// The buffers of `value` used by `user`, or failure.
  FailureOr<SmallVector<BufferOp>> buffers(Value value, Operation *user) {
    return getValueBuffers(value, user);
  }

  LaunchOp launch(OpBuilder &builder, Location loc, StringRef base,
                  SymbolRefAttr kernel, ArrayRef<std::string> grid,
                  int64_t block, ArrayRef<std::string> args,
                  int64_t sharedBytes = 0) {
    SmallVector<StringRef> gridRefs(grid.begin(), grid.end());
    SmallVector<StringRef> argRefs(args.begin(), args.end());
    return LaunchOp::create(builder, loc, uniqueName(base), kernel,
                            builder.getStrArrayAttr(gridRefs),
                            static_cast<uint32_t>(block),
                            static_cast<uint32_t>(sharedBytes),
                            builder.getStrArrayAttr(argRefs));
  }

  SymbolRefAttr kernelRef(StringRef module, StringRef entry) {
    MLIRContext *ctx = program.getContext();
    return SymbolRefAttr::get(ctx, module,
                              {FlatSymbolRefAttr::get(ctx, entry)});
  }

  /// The "cond:" handles of a kernel that writes flag `flag`.
  SmallVector<std::string> flagArgs(BufferOp flag) {
    return {bufArg(flag), bufArg(flag), "cond:" + engineCond,
            "cond:" + kLoopCond.str()};
  }

  LogicalResult checkLoopFlag(Operation *op, BufferOp flag) {
    if (flag == loopFlagBuffer)
      return success();
    return op->emitOpError() << "eval-lower-to-gpu: its flag must be the "
                                "loop's buffer "
                             << loopFlagBuffer.getSymNameAttr();
  }

  LogicalResult lowerInit(OpBuilder &builder, InitSlotsOp init) {
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
    launch(builder, init.getLoc(), "init", kernelRef("step", "proofc_init"),
           {"1"}, kStepThreads, args);
    toErase.push_back(init);
    return success();
  }

  LogicalResult lowerEngine(OpBuilder &builder, EngineOp engine,
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
    launch(builder, engine.getLoc(), "engine",
           kernelRef("step", "proofc_engine"), {"B"}, options.engineThreads,
           args);
    toErase.push_back(engine);
    return success();
  }

  LogicalResult lowerScore(OpBuilder &builder, ScoreSelectOp score,
                           BufferOp guard) {
    std::string name = "score_select";
    for (int n = 1; SymbolTable::lookupSymbolIn(gpuModule, name); ++n)
      name = "score_select_" + std::to_string(n);
    SmallVector<std::string> slotArgs;
    std::string logits, arrivals;
    if (score == persistentScore) {
      FailureOr<SmallVector<std::string>> args = slotStepArgs();
      if (failed(args))
        return failure();
      slotArgs = std::move(*args);
    } else {
      // The kernel's scratch: the logits rows its blocks meet in and their
      // arrival counts (zero-filled once; the last block re-zeroes its
      // slot's). The persistent kernel's block is its slot's only one.
      logits = addScratchBuffer(name + "_logits", builder.getF32Type(),
                                {"B", "S"});
      arrivals = addScratchBuffer(name + "_arrivals", builder.getI32Type(),
                                  {"B"});
    }
    FailureOr<PolicyKernel> kernel = buildPolicyKernel(
        score, gpuModule, name, guard.getSymName(), options.groups,
        options.statesPerThread, options.minBlocksPerSm, logits, arrivals,
        chipLimits().maxSharedPerBlock, slotArgs);
    if (failed(kernel))
      return failure();
    SmallVector<std::string> grid(kernel->grid.begin(), kernel->grid.end());
    launch(builder, score.getLoc(),
           slotArgs.empty() ? "score_select" : "persistent",
           kernelRef(gpuModule.getSymName(), name), grid, kernel->block,
           kernel->args, kernel->sharedBytes);
    if (!slotArgs.empty()) {
      if (failed(checkSlotBlock(score, kernel->block)))
        return failure();
      SmallVector<Attribute> opts(slotModule.getOptions().getValue());
      opts.push_back(builder.getStringAttr("-DPROOFC_ENGINE_THREADS=" +
                                           std::to_string(kernel->block)));
      // The linker refuses a callee that may use more registers than the
      // kernel's cap (the SM's registers over its blocks' threads, in 8s).
      if (options.minBlocksPerSm > 0) {
        int64_t regs = chipLimits().registersPerSm /
                       (options.minBlocksPerSm * kernel->block) / 8 * 8;
        opts.push_back(builder.getStringAttr(
            "-maxrregcount=" + std::to_string(std::min<int64_t>(regs, 255))));
      }
      slotModule.setOptionsAttr(builder.getArrayAttr(opts));
    }
    toErase.push_back(score);
    return success();
  }

  /// The persistent kernel's block also derives its slot (engine.cu with
  /// PROOFC_ENGINE_THREADS = the block): a power of two of threads. (The
  /// derive's shared memory is the kernel's, sized by buildPolicyKernel.)
  LogicalResult checkSlotBlock(ScoreSelectOp score, int64_t threads) {
    if (!llvm::isPowerOf2_64(threads))
      return score.emitOpError()
             << "eval-lower-to-gpu: the persistent kernel's block of "
             << threads << " threads also derives its slot, which needs a "
             << "power of two of threads; change --groups or "
             << "--states-per-thread, or use --schedule step";
    return success();
  }

  /// slot.cu's proofc_slot_advance_engine after the slot index: the fused
  /// advance-engine kernel's arguments without the guard, the counters and
  /// the flags (the persistent kernel neither waits for nor signals a step).
  FailureOr<SmallVector<std::string>> slotStepArgs() {
    FailureOr<AdvanceBuffers> a = advanceBuffers(fusedAdvance);
    auto engine = cast<EngineOp>(fusedCond.getBody().front().front());
    auto kb = buffers(engine.getKb(), engine);
    if (failed(a) || failed(kb))
      return failure();
    return advanceEngineArgs(fusedAdvance, *a, *kb);
  }

  /// The step memo's arguments (memo.cu, after advance.cu's count): MEMO
  /// entries of memoEntryWords() words and each slot's claimed entry, both
  /// zero-filled before the run, then MEMO.
  SmallVector<std::string> memoArgs() {
    Type i32 = IntegerType::get(program.getContext(), 32);
    std::string words = std::to_string(memoEntryWords());
    return {"buf:" + addScratchBuffer("memo_table", i32, {"MEMO", words}),
            "buf:" + addScratchBuffer("memo_claims", i32, {"B"}), "sym:MEMO"};
  }

  /// memo.cu's kEntryWords (kernel_abi.h).
  int64_t memoEntryWords() {
    return proofc_abi::memoEntryWords(
        static_cast<int>(program.getAAttr().getInt()));
  }

  /// Declares a buffer named `base` (made unique) after the program's
  /// buffers, zero-filled, or bound to `init` (an output binding); returns
  /// its name.
  std::string addScratchBuffer(StringRef base, Type dtype,
                               ArrayRef<StringRef> elements,
                               StringRef init = "") {
    Block &block = program.getBody().front();
    std::string name = base.str();
    for (int n = 1; SymbolTable::lookupSymbolIn(program, name); ++n)
      name = base.str() + "_" + std::to_string(n);
    OpBuilder builder(program.getContext());
    builder.setInsertionPointAfter(llvm::to_vector(block.getOps<BufferOp>()).back());
    BufferOp::create(builder, program.getLoc(), name, dtype,
                     builder.getStrArrayAttr(elements), init);
    return name;
  }

  /// The recorded actions (docs/proofs.md): the output out.actions, N rows
  /// of ACTIONS (the runtime's symbol: D when the run records the actions,
  /// else 0), and ACTIONS; declared once, shared by every advance.
  SmallVector<std::string> outActionsArgs() {
    if (outActionsBuffer.empty())
      outActionsBuffer = addScratchBuffer(
          "out_actions", IntegerType::get(program.getContext(), 32),
          {"N", "ACTIONS"}, "out.actions");
    return {"buf:" + outActionsBuffer, "sym:ACTIONS"};
  }

  /// The advance's buffers, checked: the slots advance in place and the
  /// flag is the loop's.
  struct AdvanceBuffers {
    SmallVector<BufferOp> pool, derived, action, logp, slots, flag;
  };
  FailureOr<AdvanceBuffers> advanceBuffers(AdvanceOp advance) {
    auto pool = buffers(advance.getPool(), advance);
    auto derived = buffers(advance.getDerived(), advance);
    auto action = buffers(advance.getAction(), advance);
    auto logp = buffers(advance.getLogp(), advance);
    auto slots = buffers(advance.getSlots(), advance);
    auto result = buffers(advance.getResult(), advance);
    auto flag = buffers(advance.getActive(), advance);
    if (failed(pool) || failed(derived) || failed(action) || failed(logp) ||
        failed(slots) || failed(result) || failed(flag) ||
        failed(checkLoopFlag(advance, (*flag)[0])))
      return failure();
    if (*slots != *result)
      return advance.emitOpError("eval-lower-to-gpu: the kernel advances the "
                                 "slots in place; operand and result must "
                                 "share buffers (run eval-plan-buffers)");
    return AdvanceBuffers{*pool, *derived, *action, *logp, *slots, *flag};
  }

  /// The slots, then next_cand, the outcome buffers and the recorded
  /// actions.
  void appendSlotsAndOutcomes(SmallVector<std::string> &args,
                              const AdvanceBuffers &a) {
    for (BufferOp b : a.slots)
      args.push_back(bufArg(b));
    for (BufferOp b : ArrayRef<BufferOp>(a.pool).drop_front())
      args.push_back(bufArg(b)); // next_cand, out_status, out_depth, out_logp
    llvm::append_range(args, outActionsArgs());
  }

  std::string maxDepthArg(AdvanceOp advance) {
    return "i32:" + std::to_string(advance.getMaxDepthAttr().getInt());
  }

  /// What advancing and deriving a slot reads and writes, in slot.cu's and
  /// proofc_advance_engine's order: pool, N, D, R, the action and its logp,
  /// the slots, next_cand and the outcomes, the knowledge base, E, derived,
  /// the step memo.
  SmallVector<std::string> advanceEngineArgs(AdvanceOp advance,
                                             const AdvanceBuffers &a,
                                             ArrayRef<BufferOp> kb) {
    SmallVector<std::string> args = {
        bufArg(a.pool[0]), "sym:N", maxDepthArg(advance), "sym:R",
        bufArg(a.action[0]), bufArg(a.logp[0])};
    appendSlotsAndOutcomes(args, a);
    for (BufferOp b : kb)
      args.push_back(bufArg(b));
    args.push_back("sym:E");
    args.push_back(bufArg(a.derived[0]));
    args.push_back(bufArg(a.derived[1]));
    llvm::append_range(args, memoArgs());
    return args;
  }

  LogicalResult lowerAdvance(OpBuilder &builder, AdvanceOp advance,
                             BufferOp guard) {
    FailureOr<AdvanceBuffers> a = advanceBuffers(advance);
    if (failed(a))
      return failure();
    SmallVector<std::string> args = {
        bufArg(guard),        bufArg(a->pool[0]),    "sym:N",
        "sym:B",              maxDepthArg(advance),  "sym:R",
        bufArg(a->derived[0]), bufArg(a->derived[1]), bufArg(a->action[0]),
        bufArg(a->logp[0])};
    appendSlotsAndOutcomes(args, *a);
    llvm::append_range(args, flagArgs(a->flag[0]));
    launch(builder, advance.getLoc(), "advance",
           kernelRef("step", "proofc_advance"), {"1"}, kStepThreads, args);
    toErase.push_back(advance);
    return success();
  }

  /// eval.advance and the engine cond after it (findFusableCond): one block
  /// per slot advances it and derives its next states; the last block
  /// reduces the flags through a zero-filled pair of counters.
  LogicalResult lowerAdvanceEngine(OpBuilder &builder, AdvanceOp advance,
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
      launch(builder, advance.getLoc(), "finish",
             kernelRef("step", "proofc_finish"), {"1"}, kWarpThreads,
             {bufArg(a->flag[0]), "cond:" + kLoopCond.str()});
      toErase.push_back(advance);
      return success();
    }
    std::string counters = addScratchBuffer("advance_engine_counters",
                                            builder.getI32Type(), {"2"});
    SmallVector<std::string> args = {bufArg(guard)};
    llvm::append_range(args, advanceEngineArgs(advance, *a, *kb));
    args.push_back("buf:" + counters);
    llvm::append_range(args, flagArgs(a->flag[0]));
    launch(builder, advance.getLoc(), "advance_engine",
           kernelRef("step", "proofc_advance_engine"), {"B"},
           options.engineThreads, args);
    toErase.push_back(advance);
    return success();
  }

  LogicalResult lowerCopy(OpBuilder &builder, CopyOp copy, BufferOp guard) {
    auto from = buffers(copy.getInput(), copy);
    auto to = buffers(copy.getResult(), copy);
    if (failed(from) || failed(to))
      return failure();
    StringRef entry = copyKernel();
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
        args.push_back((isExtentSymbol(factor) ? "sym:" : "i32:") +
                       factor.str());
      }
      launch(builder, copy.getLoc(), "copy_" + dst.getSymName().str(),
             kernelRef(gpuModule.getSymName(), entry),
             {std::to_string(kCopyBlocks)}, kCopyThreads, args);
    }
    toErase.push_back(copy);
    return success();
  }

  LogicalResult lowerLoop(OpBuilder &builder, DeviceLoopOp loop) {
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
    return lowerBlock(*body, (*flag)[0]);
  }

  LogicalResult lowerCond(OpBuilder &builder, CondOp cond) {
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

  /// gpu.func @copy_words(guard, src, dst, f0, f1, f2, f3): dst = src over
  /// f0*f1*f2*f3 words, grid-stride. Made once per GPU module.
  StringRef copyKernel() {
    StringRef name = "copy_words";
    if (SymbolTable::lookupSymbolIn(gpuModule, name))
      return name;
    MLIRContext *ctx = program.getContext();
    ImplicitLocOpBuilder b(program.getLoc(),
                           OpBuilder::atBlockEnd(gpuModule.getBody()));
    Type i32 = b.getI32Type();
    auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
    auto ptr = MemRefType::get({}, i32, MemRefLayoutAttrInterface(), global);
    auto func = gpu::GPUFuncOp::create(
        b, name, b.getFunctionType({ptr, ptr, ptr, i32, i32, i32, i32}, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    Value n = entry.getArgument(3);
    for (unsigned i = 4; i < 7; ++i)
      n = arith::MulIOp::create(b, n, entry.getArgument(i));
    Value words = arith::IndexCastOp::create(b, b.getIndexType(), n);
    auto flat = [&](Value p, Value size) {
      auto type = MemRefType::get({ShapedType::kDynamic}, i32,
                                  MemRefLayoutAttrInterface(), global);
      return memref::ReinterpretCastOp::create(
          b, type, p, b.getIndexAttr(0), ArrayRef<OpFoldResult>{size},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    };
    Value guardValue =
        memref::LoadOp::create(b, entry.getArgument(0), ValueRange{});
    Value zero = arith::ConstantIntOp::create(b, 0, 32);
    Value run =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne, guardValue, zero);
    auto ifOp = scf::IfOp::create(b, run, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value src = flat(entry.getArgument(1), words);
    Value dst = flat(entry.getArgument(2), words);
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value bdim = gpu::BlockDimOp::create(b, gpu::Dimension::x);
    Value gdim = gpu::GridDimOp::create(b, gpu::Dimension::x);
    Value start =
        arith::AddIOp::create(b, arith::MulIOp::create(b, bid, bdim), tid);
    Value stride = arith::MulIOp::create(b, gdim, bdim);
    scf::ForOp::create(b, start, words, stride, ValueRange{},
                       [&](OpBuilder &, Location, Value i, ValueRange) {
                         Value v = memref::LoadOp::create(b, src, i);
                         memref::StoreOp::create(b, v, dst, i);
                         scf::YieldOp::create(b);
                       });
    b.setInsertionPointAfter(ifOp);
    gpu::ReturnOp::create(b);
    return name;
  }

  ProgramOp program;
  gpu::GPUModuleOp gpuModule;
  const EvalLowerToGpuPassOptions &options;
  BufferOp loopFlagBuffer;
  std::string engineCond;
  std::string outActionsBuffer; ///< outActionsArgs(), once declared
  AdvanceOp fusedAdvance; ///< with fusedCond: one launch (fuse-advance-engine)
  CondOp fusedCond;
  ScoreSelectOp persistentScore; ///< schedule=persistent: its kernel loops
  CudaModuleOp slotModule;       ///< schedule=persistent: slot.cu
  llvm::StringSet<> launchNames;
  SmallVector<Operation *> toErase;
};

struct EvalLowerToGpuPass
    : public eval::impl::EvalLowerToGpuPassBase<EvalLowerToGpuPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (engineThreads < 32 || engineThreads > 1024 ||
        (engineThreads & (engineThreads - 1)) != 0) {
      module.emitError() << "eval-lower-to-gpu: engine-threads must be a "
                            "power of two in [32, 1024], got "
                         << static_cast<int64_t>(engineThreads);
      return signalPassFailure();
    }
    if (groups < 0 || statesPerThread < 1 ||
        (groups == 0 && schedule != "persistent")) {
      module.emitError() << "eval-lower-to-gpu: groups and states-per-thread "
                            "must be positive (groups 0: fit a slot, with "
                            "schedule=persistent), got "
                         << static_cast<int64_t>(groups) << " and "
                         << static_cast<int64_t>(statesPerThread);
      return signalPassFailure();
    }
    if (!proofc::findChipLimits(chip)) {
      std::string known;
      for (const proofc::ChipLimits &c : proofc::knownChips())
        known += (known.empty() ? "" : ", ") + c.chip.str();
      module.emitError() << "eval-lower-to-gpu: unknown chip '" << chip
                         << "': its shared memory and register limits are "
                            "not known (known: "
                         << known << ")";
      return signalPassFailure();
    }
    auto programs = llvm::to_vector(module.getOps<ProgramOp>());
    for (ProgramOp program : programs) {
      if (!program.getBody().front().getOps<LaunchLoopOp>().empty())
        continue; // already lowered
      gpu::GPUModuleOp gpuModule = createGpuModule(module, program);
      EvalLowerToGpuPassOptions opts{
          chip,          features,       libdevice,        groups,
          statesPerThread, engineThreads, minBlocksPerSm, fuseAdvanceEngine,
          schedule};
      if (failed(ProgramLowering(program, gpuModule, opts).run()))
        return signalPassFailure();
    }
  }

  gpu::GPUModuleOp createGpuModule(ModuleOp module, ProgramOp program) {
    MLIRContext *ctx = module.getContext();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    std::string name = "policy";
    for (int n = 1; SymbolTable::lookupSymbolIn(module, name); ++n)
      name = "policy_" + std::to_string(n);
    std::string link =
        libdevice.empty() ? defaultLibdevicePath() : std::string(libdevice);
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto target = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip, features,
        /*targetFlags=*/nullptr, builder.getStrArrayAttr({link}));
    return gpu::GPUModuleOp::create(builder, program.getLoc(), name,
                                    builder.getArrayAttr({target}));
  }
};

} // namespace
