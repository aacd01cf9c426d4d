//===- ProgramLowering.h - one program's eval-lower-to-gpu ------*- C++ -*-===//
//
// ProgramLowering turns one planned eval.program into its GPU plan as IR
// (LowerToGpu.cpp's banner lists the op-for-op mapping). Its state is the
// names it hands out and what it found in the program (the loop's flag,
// the engine cond, the fused step, the persistent policy, the tail
// hand-off's); its methods,
// one group a file:
//   ProgramLowering.cpp  the walk: checks, the CUDA C++ modules, the ops of
//                        a block in order, loops and conds, scratch buffers
//   Launches.cpp         one eval.launch for each op (init, engine, policy,
//                        advance, advance-engine, finish, copy)
//   LaunchArguments.cpp  the kernels' argument lists, in kernel_abi.h's
//                        order, the step memo's layout, and the check of
//                        every launch against kernel_abi.h
// CopyKernel.h makes the gpu.func the copies launch.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_LOWERING_PROGRAMLOWERING_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_LOWERING_PROGRAMLOWERING_H

#include "../PolicyKernel.h"

#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Dialect/Eval/Transforms/ValueBuffers.h"
#include "proofc/Target/ChipLimits.h"
#include "proofc/contract/BundleNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir::eval::lowering {

/// The proof loop's launch_loop name, and the cond handle it sets.
inline constexpr StringLiteral kLoopCond = "loop";
/// The step schedule's module of step.cu holding the fused advance-engine
/// kernel (the other entries are module "step"'s).
inline constexpr StringLiteral kAdvanceModule = "advance";
/// Threads of step.cu's one-block kernels (init, advance) and of finish.
inline constexpr int64_t kStepThreads = 256, kWarpThreads = 32;
/// Threads of proofc_list_slots's one block (the advance in the policy's
/// first list: B / 1024 slots a thread).
inline constexpr int64_t kListThreads = 1024;

/// A CUDA C++ module's register cap, as the NVRTC option it is:
/// "-maxrregcount=<registers>" (slot.cu's, and the fused advance-engine's).
inline std::string registerCapOption(int64_t registers) {
  return "-maxrregcount=" + std::to_string(registers);
}

/// A buffer as a launch argument: "buf:<name>".
inline std::string bufArg(BufferOp buffer) {
  return ("buf:" + buffer.getSymName()).str();
}

/// The advance's buffers, checked: the slots advance in place and the
/// flag is the loop's.
struct AdvanceBuffers {
  SmallVector<BufferOp> pool, derived, action, logp, slots, flag;
};

/// Lowers one program; owns the names it hands out.
class ProgramLowering {
public:
  ProgramLowering(ProgramOp program, gpu::GPUModuleOp gpuModule,
                  EvalLowerToGpuPassOptions options)
      : program(program), gpuModule(gpuModule), options(options) {}

  /// Lowers the program in place; fails with a diagnostic on the op at fault.
  LogicalResult run();

  /// Whether run() declared the step schedule's fused advance-engine
  /// module (kAdvanceModule).
  bool hasFusedAdvanceModule() const { return fusedAdvance && !persistent(); }

private:
  /// The limits of options.chip (checked by the pass before lowering).
  const proofc::ChipLimits &chipLimits() const {
    return *proofc::findChipLimits(options.chip);
  }

  bool persistent() const { return options.schedule == "persistent"; }

  /// Whether the step's advance and derive run in the step policy kernel
  /// (advance-in-policy: slot.cu's proofc_policy_advance linked into its
  /// module, and proofc_step_end in the advance-engine's place;
  /// docs/gpu-kernels.md, "The advance in the policy").
  bool advancesInPolicy() const {
    return options.advanceInPolicy && hasFusedAdvanceModule();
  }

  /// Whether the step schedule ends at the tail hand-off (tail-handoff > 0
  /// with the fused advance-engine; the pass reports the option where there
  /// is none): the loop's policy also gets its persistent form, launched
  /// once after the loop (docs/gpu-kernels.md, "The tail hand-off").
  bool handsOffTail() const {
    return options.tailHandoff > 0 && hasFusedAdvanceModule();
  }

  /// The buffers of `value` used by `user`, or failure.
  FailureOr<SmallVector<BufferOp>> buffers(Value value, Operation *user) {
    return getValueBuffers(value, user);
  }

  //===------------------------------------------------------------------===//
  // The walk (ProgramLowering.cpp)
  //===------------------------------------------------------------------===//

  /// The cond sharing the loop's flag: its handle is the kernels' second.
  LogicalResult findEngineCond(DeviceLoopOp loop);

  /// With fuse-advance-engine: the cond right after the loop's eval.advance
  /// that holds only eval.engine of the advanced slots, on the advance's
  /// flag. It becomes part of the advance's launch, and the kernels' engine
  /// handle is the loop's (no IF node is left).
  void findFusableCond(DeviceLoopOp loop);

  /// The persistent kernel replaces exactly the fused step: the loop holds
  /// one eval.score_select, then the fused advance and engine cond, on the
  /// same buffers (it reads its own slot's derived states, writes its own
  /// action, then advances and derives that slot). `what` names the option
  /// that asks for it in the diagnostic.
  FailureOr<ScoreSelectOp> checkPersistent(DeviceLoopOp loop, StringRef what);

  void declareModules();
  /// Adds to each loaded CUDA C++ module the options that define only the
  /// entries launched from it (kernel_abi.h's PROOFC_HAS_ENTRY).
  void listModuleEntries();

  std::string uniqueName(StringRef base);

  /// Lowers the ops of `block` in place; `guard` is the innermost flag.
  LogicalResult lowerBlock(Block &block, BufferOp guard);

  LogicalResult checkLoopFlag(Operation *op, BufferOp flag);

  /// Declares a buffer named `base` (made unique) after the program's
  /// buffers, zero-filled, or bound to `init` (an output binding); returns
  /// its name.
  std::string addScratchBuffer(StringRef base, Type dtype,
                               ArrayRef<StringRef> elements,
                               StringRef init = "");

  LogicalResult lowerLoop(OpBuilder &builder, DeviceLoopOp loop);

  LogicalResult lowerCond(OpBuilder &builder, CondOp cond);

  //===------------------------------------------------------------------===//
  // Launches (Launches.cpp)
  //===------------------------------------------------------------------===//

  /// A launch named `base` (made unique) doing `role` (the bundle's role
  /// tag, BundleNames.h).
  LaunchOp launch(OpBuilder &builder, Location loc, proofc::LaunchRole role,
                  StringRef base, SymbolRefAttr kernel,
                  ArrayRef<std::string> grid, int64_t block,
                  ArrayRef<std::string> args, int64_t sharedBytes = 0);

  SymbolRefAttr kernelRef(StringRef module, StringRef entry);

  LogicalResult lowerInit(OpBuilder &builder, InitSlotsOp init);

  LogicalResult lowerEngine(OpBuilder &builder, EngineOp engine,
                            BufferOp guard);

  LogicalResult lowerScore(OpBuilder &builder, ScoreSelectOp score,
                           BufferOp guard);

  /// The persistent kernel's block also derives its slot (engine.cu with
  /// PROOFC_ENGINE_THREADS = the block): a power of two of threads. (The
  /// derive's shared memory is the kernel's, sized by buildPolicyKernel.)
  LogicalResult checkSlotBlock(ScoreSelectOp score, int64_t threads);

  /// slot.cu's options (`module`: the persistent kernel's or the fused
  /// step's) once its caller's block (`threads`) and register cap
  /// (`minBlocksPerSm` > 0) are known.
  void setSlotModuleOptions(CudaModuleOp module, int64_t threads,
                            int64_t minBlocksPerSm);

  /// The tail hand-off's kernel: the persistent form of the loop's policy
  /// `score`, with the persistent schedule's groups and blocks an SM, its
  /// blocks mapped by the advance-engine's list (engineGridBuffers).
  LogicalResult buildTailKernel(ScoreSelectOp score);

  LogicalResult lowerAdvance(OpBuilder &builder, AdvanceOp advance,
                             BufferOp guard);

  /// eval.advance and the engine cond after it (findFusableCond): one block
  /// per slot advances it and derives its next states; the last block
  /// reduces the flags through a zero-filled pair of counters.
  LogicalResult lowerAdvanceEngine(OpBuilder &builder, AdvanceOp advance,
                                   BufferOp guard);

  LogicalResult lowerCopy(OpBuilder &builder, CopyOp copy, BufferOp guard);

  /// The step policy grid's two scratch buffers (kernel_abi.h's
  /// PolicyGridWord words, and the list's PolicyEntryWord entries, B x parts
  /// of them once finishPolicyGrid knows the parts), declared at the first
  /// call.
  const std::pair<std::string, std::string> &policyGridBuffers();

  /// Appends kernel_abi.h's policy grid arguments to init and the fused
  /// advance-engine once every launch exists: the first step policy
  /// launch's parts, children a part and, where the grid is resized,
  /// "node:" and its name (init is lowered before it); one part and no
  /// node without a step policy.
  void finishPolicyGrid();

  /// Whether the fused advance-engine sizes its own next launch
  /// (chooseEngineGridResize): its module compiles the list
  /// (kEngineListOption) and its launches name their own node.
  bool resizesEngineGrid();

  /// Appends kernel_abi.h's advance-engine grid arguments to init and the
  /// fused advance-engine, after the policy's: the grid's words and list
  /// (declared here) and, where the advance-engine resizes its own next
  /// launch (chooseEngineGridResize), "node:" and its name; the
  /// advance-engine's B before them.
  void finishEngineGrid();

  /// The advance-engine grid's two scratch buffers (kernel_abi.h's
  /// EngineGridWord words, and the list: two halves of B slots), declared at
  /// the first call.
  const std::pair<std::string, std::string> &engineGridBuffers();

  /// Appends `more` to a launch built earlier (the grids' arguments, known
  /// once every launch exists).
  void appendArgs(LaunchOp launch, ArrayRef<std::string> more);

  //===------------------------------------------------------------------===//
  // Argument lists (LaunchArguments.cpp)
  //===------------------------------------------------------------------===//

  /// Every launch of a kernel template (and the persistent kernel's slot.cu
  /// words) against kernel_abi.h: an argument list built here that the
  /// kernels do not take is an error of this pass, not a crash on a GPU.
  LogicalResult checkKernelAbi();

  /// The "cond:" handles of a kernel that writes flag `flag`.
  SmallVector<std::string> flagArgs(BufferOp flag);

  /// slot.cu's proofc_slot_advance_engine after the slot index: the fused
  /// advance-engine kernel's arguments without the guard, the counters and
  /// the flags (the persistent kernel neither waits for nor signals a step).
  FailureOr<SmallVector<std::string>> slotStepArgs();

  /// slot.cu's proofc_policy_advance after the slot index (kernel_abi.h's
  /// PROOFC_ABI_POLICY_ADVANCE_ARGS): slotStepArgs(), then the counters, the
  /// children a part (buildPolicyKernel writes the kernel's own), the
  /// policy grid's words and list, B and the engine grid's words and list.
  FailureOr<SmallVector<std::string>> policyAdvanceArgs();

  /// The step's counters (kernel_abi.h's Counters: the slots active
  /// after a step, and the advance-engine's blocks arrived), zero-filled,
  /// declared at the first call.
  const std::string &stepCounters();

  /// The step memo's arguments (memo.cu, after advance.cu's count): MEMO
  /// entries of memoEntryWords() words and each slot's claimed entry, both
  /// zero-filled before the run (declared once: memoBuffers), then MEMO.
  SmallVector<std::string> memoArgs();

  /// memo.cu's kEntryWords (kernel_abi.h).
  int64_t memoEntryWords();

  /// The recorded actions (docs/proofs.md): the output out.actions, N rows
  /// of ACTIONS (the runtime's symbol: D when the run records the actions,
  /// else 0), and ACTIONS; declared once, shared by every advance.
  SmallVector<std::string> outActionsArgs();

  FailureOr<AdvanceBuffers> advanceBuffers(AdvanceOp advance);

  /// The slots, then next_cand, the outcome buffers and the recorded
  /// actions.
  void appendSlotsAndOutcomes(SmallVector<std::string> &args,
                              const AdvanceBuffers &a);

  std::string maxDepthArg(AdvanceOp advance);

  /// What advancing and deriving a slot reads and writes, in slot.cu's and
  /// proofc_advance_engine's order: pool, N, D, R, the action and its logp,
  /// the slots, next_cand and the outcomes, the knowledge base, E, derived,
  /// the step memo.
  SmallVector<std::string> advanceEngineArgs(AdvanceOp advance,
                                             const AdvanceBuffers &a,
                                             ArrayRef<BufferOp> kb);

  ProgramOp program;
  gpu::GPUModuleOp gpuModule;
  const EvalLowerToGpuPassOptions options; ///< resolved: no auto left
  BufferOp loopFlagBuffer;
  std::string engineCond;
  std::string outActionsBuffer; ///< outActionsArgs(), once declared
  std::pair<std::string, std::string>
      memoBuffers;        ///< memoArgs(): table, claims
  AdvanceOp fusedAdvance; ///< with fusedCond: one launch (fuse-advance-engine)
  CondOp fusedCond;
  ScoreSelectOp persistentScore; ///< schedule=persistent: its kernel loops
  ScoreSelectOp tailScore;       ///< the tail hand-off's: the loop's policy
  /// The tail hand-off's kernel (buildTailKernel), launched after the loop,
  /// in a gpu.module of its own (slot.cu linked into it; the step policy's
  /// module links nothing and stays as it is without the hand-off).
  std::optional<PolicyKernel> tailKernel;
  gpu::GPUModuleOp tailModule;
  /// slot.cu, linked into gpuModule (schedule=persistent) or tailModule.
  CudaModuleOp slotModule;
  /// advance-in-policy: the loop's policy, and slot.cu compiled for it
  /// (kAdvanceInPolicyOption), linked into gpuModule.
  ScoreSelectOp policyAdvanceScore;
  CudaModuleOp policyAdvanceModule;
  LaunchOp listSlotsLaunch;   ///< its first list (proofc_list_slots)
  std::string countersBuffer; ///< stepCounters(), once declared
  llvm::StringSet<> launchNames;
  /// finishPolicyGrid's launches and what it appends to them.
  LaunchOp initLaunch;
  SmallVector<LaunchOp> advanceEngineLaunches;
  std::pair<std::string, std::string> policyGridNames; ///< words, list
  std::pair<std::string, std::string> engineGridNames; ///< words, list
  /// The first step policy launch's parts and children a part, and its
  /// name when the advance-engine resizes its grid (choosePolicyGridResize).
  bool policyGridKnown = false;
  std::string policyLaunch;
  int64_t policyParts = 1, policyChildrenPerPart = 1;
  /// The step policy kernels' most parts: the policy list's (B of them).
  int64_t policyListParts = 1;
  SmallVector<Operation *> toErase;
};

} // namespace mlir::eval::lowering

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_LOWERING_PROGRAMLOWERING_H
