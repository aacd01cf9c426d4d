//===- LowerToGpu.cpp - eval-lower-to-gpu ---------------------------------===//
//
// A planned program becomes its GPU plan as IR, op for op:
//   eval.init_slots / eval.advance  -> launches of step.cu's proofc_init /
//                                      proofc_advance
//   eval.engine                     -> a launch of proofc_engine (engine.cu,
//                                      which step.cu includes)
//   eval.advance + the engine cond  -> ONE launch of proofc_advance_engine
//                                      (fuse-advance-engine)
//   eval.score_select               -> gpu.func @proofc_policy (PolicyKernel)
//                                      in gpu.module @policy, and its launch
//   with schedule=persistent: the
//   loop's score_select + advance   -> ONE launch of the persistent policy
//   engine                             kernel (each block runs its slot to
//                                      the end; slot.cu linked in), then
//                                      step.cu's proofc_finish
//   eval.copy                       -> launches of gpu.func @copy_words
//   eval.device_loop / eval.cond    -> eval.launch_loop / eval.launch_cond
// Kernels inside a cond or the loop take the innermost flag as their guard;
// the setup launches after eval.init_slots take the loop's flag, which
// init has written. Arguments follow kernel_abi.h's lists (checked once
// lowered: checkKernelAbi) and docs/gpu-kernels.md.
//
// This file is the pass: it checks the options, resolves those left at
// auto for each program (GpuHeuristics.h), makes the program's gpu.module
// and runs Lowering/ProgramLowering.h on it; Lowering/ holds the lowering
// itself (its header lists the files).
//
//===----------------------------------------------------------------------===//
#include "Lowering/ProgramLowering.h"

#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Target/ChipLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

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

struct EvalLowerToGpuPass
    : public eval::impl::EvalLowerToGpuPassBase<EvalLowerToGpuPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (engineThreads != kAutoOption &&
        (engineThreads < 32 || engineThreads > 1024 ||
         (engineThreads & (engineThreads - 1)) != 0)) {
      module.emitError() << "eval-lower-to-gpu: engine-threads must be a "
                            "power of two in [32, 1024] (-1: auto), got "
                         << static_cast<int64_t>(engineThreads);
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
    FailureOr<std::string> nvvmFeatures = targetFeatures(module);
    if (failed(nvvmFeatures))
      return signalPassFailure();
    auto programs = llvm::to_vector(module.getOps<ProgramOp>());
    for (ProgramOp program : programs) {
      if (!program.getBody().front().getOps<LaunchLoopOp>().empty())
        continue; // already lowered
      FailureOr<EvalLowerToGpuPassOptions> opts = resolveOptions(program);
      if (failed(opts))
        return signalPassFailure();
      gpu::GPUModuleOp gpuModule =
          createGpuModule(module, program, *nvvmFeatures);
      lowering::ProgramLowering lowering(program, gpuModule, *opts);
      if (failed(lowering.run()))
        return signalPassFailure();
      // An explicit option for a kernel the program does not have is an
      // error, not a no-op (auto asks for nothing there).
      for (auto [name, value] :
           {std::pair<StringRef, int64_t>{"engine-max-registers",
                                          engineMaxRegisters},
            {"memo-max-waits", memoMaxWaits},
            {"tail-handoff", tailHandoff}})
        if (value > 0 && !lowering.hasFusedAdvanceModule()) {
          program.emitError()
              << "eval-lower-to-gpu: " << name
              << " applies to the step schedule's fused advance-engine "
                 "kernel, which this program does not have ("
              << (opts->schedule == "persistent" ? "schedule=persistent"
                  : !opts->fuseAdvanceEngine
                      ? "fuse-advance-engine=false"
                      : "its advance and engine cond are not fusable")
              << ")";
          return signalPassFailure();
        }
    }
  }

  /// The options with those left at auto/-1 chosen for `program`
  /// (GpuHeuristics.h): the schedule from B and whether eval-plan-buffers
  /// put the policy on the tensor cores (its fragment tables), then
  /// the warps per block and the blocks per SM; the engine's block from B.
  FailureOr<EvalLowerToGpuPassOptions> resolveOptions(ProgramOp program) {
    const StringRef matmul = plannedMatmul(program);
    const bool tensorCores = onTensorCores(matmul);
    const bool foldedAtomLayer = plansAtomLayerTable(program);
    int64_t B = program.getBAttr().getInt();
    EvalLowerToGpuPassOptions o;
    o.chip = chip;
    o.features = features;
    o.libdevice = libdevice;
    o.statesPerThread = statesPerThread;
    o.engineThreads = engineThreads == kAutoOption
                          ? chooseEngineThreads(B)
                          : static_cast<int64_t>(engineThreads);
    o.fuseAdvanceEngine = fuseAdvanceEngine;
    o.advanceInPolicy = advanceInPolicy;
    o.schedule = schedule == kAutoWord
                     ? chooseSchedule(tensorCores, B, fuseAdvanceEngine).str()
                     : std::string(schedule);
    o.groups = groups == kAutoOption ? chooseGroups(tensorCores, B, o.schedule)
                                     : static_cast<int64_t>(groups);
    // The fused advance-engine kernel's options: auto asks for nothing
    // where there is no such kernel.
    const bool fusedStepKernel = o.schedule == "step" && fuseAdvanceEngine;
    o.engineMaxRegisters =
        engineMaxRegisters != kAutoOption
            ? static_cast<int64_t>(engineMaxRegisters)
            : (fusedStepKernel ? chooseEngineMaxRegisters(B) : 0);
    o.memoMaxWaits = memoMaxWaits != kAutoOption
                         ? static_cast<int64_t>(memoMaxWaits)
                         : (fusedStepKernel ? chooseMemoMaxWaits(B) : 0);
    o.tailHandoff =
        tailHandoff != kAutoOption
            ? static_cast<int64_t>(tailHandoff)
            : (fusedStepKernel ? chooseTailHandoff(tensorCores, B) : 0);
    o.minBlocksPerSm =
        minBlocksPerSm == kAutoOption
            ? chooseMinBlocksPerSm(matmul, B, o.schedule, foldedAtomLayer)
            : static_cast<int64_t>(minBlocksPerSm);
    if (o.groups < 0 || o.statesPerThread < 1 ||
        (o.groups == 0 && o.schedule != "persistent"))
      return program.emitError()
             << "eval-lower-to-gpu: groups and states-per-thread must be "
                "positive (groups 0: fit a slot, with schedule=persistent; "
                "-1: auto), got "
             << static_cast<int64_t>(groups) << " and "
             << static_cast<int64_t>(statesPerThread);
    if (o.engineMaxRegisters < 0 ||
        o.engineMaxRegisters > proofc::kMaxRegistersPerThread)
      return program.emitError()
             << "eval-lower-to-gpu: engine-max-registers must be in [0, "
             << proofc::kMaxRegistersPerThread
             << "] (0: no cap; -1: auto), got "
             << static_cast<int64_t>(engineMaxRegisters);
    if (o.memoMaxWaits < 0 || o.memoMaxWaits > kMaxMemoWaits)
      return program.emitError()
             << "eval-lower-to-gpu: memo-max-waits must be in [0, "
             << kMaxMemoWaits << "] (0: never; -1: auto), got "
             << static_cast<int64_t>(memoMaxWaits);
    if (o.tailHandoff < 0)
      return program.emitError()
             << "eval-lower-to-gpu: tail-handoff must be 0 or more (0: "
                "never; -1: auto), got "
             << static_cast<int64_t>(tailHandoff);
    if (o.minBlocksPerSm < 0)
      return program.emitError()
             << "eval-lower-to-gpu: min-blocks-per-sm must be 0 or more (-1: "
                "auto), got "
             << static_cast<int64_t>(minBlocksPerSm);
    return o;
  }

  /// The target features: the option's, or the chip's default
  /// (ChipLimits.h); a PTX ISA older than the chip's first is refused here,
  /// where LLVM's NVPTX backend would end the process ("LLVM ERROR").
  FailureOr<std::string> targetFeatures(ModuleOp module) {
    const proofc::ChipLimits &limits = *proofc::findChipLimits(chip);
    if (features.empty())
      return proofc::ptxFeature(proofc::defaultPtx(limits));
    auto isa = [](int64_t v) {
      return std::to_string(v / 10) + "." + std::to_string(v % 10);
    };
    for (StringRef rest = features; !rest.empty();) {
      auto [feature, tail] = rest.split(',');
      rest = tail;
      int64_t version = 0;
      if (!feature.consume_front(proofc::kPtxFeaturePrefix) ||
          feature.getAsInteger(10, version) || version >= limits.minPtx)
        continue;
      module.emitError() << "eval-lower-to-gpu: features '" << features
                         << "' ask for PTX ISA " << isa(version)
                         << ", older than chip " << chip << " needs ("
                         << isa(limits.minPtx) << ": "
                         << proofc::ptxFeature(limits.minPtx) << " or later)";
      return failure();
    }
    return std::string(features);
  }

  gpu::GPUModuleOp createGpuModule(ModuleOp module, ProgramOp program,
                                   StringRef nvvmFeatures) {
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
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip, nvvmFeatures,
        /*targetFlags=*/nullptr, builder.getStrArrayAttr({link}));
    return gpu::GPUModuleOp::create(builder, program.getLoc(), name,
                                    builder.getArrayAttr({target}));
  }
};

} // namespace
