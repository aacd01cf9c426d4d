//===- Passes.h - Passes of the eval GPU pipeline ---------------*- C++ -*-===//
//
// The passes of dialects/Eval/Transforms/EvalPasses.td (one per file in
// lib/Transforms/ and lib/Conversion/EvalToGPU/) and the pipeline that the
// driver runs: eval program -> launches + gpu.module -> PTX.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_TRANSFORMS_PASSES_H
#define PROOFC_DIALECT_EVAL_TRANSFORMS_PASSES_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace mlir::eval {

#define GEN_PASS_DECL
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"

/// Options of the whole pipeline (those of eval-lower-to-gpu).
struct EvalGpuPipelineOptions
    : public PassPipelineOptions<EvalGpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVVM target chip"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("NVVM target features"),
                               llvm::cl::init("+ptx86")};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice.10.bc (empty: the configured toolkit's)"),
      llvm::cl::init("")};
  Option<int64_t> groups{*this, "groups",
                         llvm::cl::desc("Warps per policy-kernel block"),
                         llvm::cl::init(4)};
  Option<int64_t> statesPerThread{
      *this, "states-per-thread",
      llvm::cl::desc("States each policy-kernel thread encodes at once"),
      llvm::cl::init(4)};
  Option<int64_t> engineThreads{*this, "engine-threads",
                                llvm::cl::desc("Engine kernel block size"),
                                llvm::cl::init(128)};
  Option<int64_t> minBlocksPerSm{
      *this, "min-blocks-per-sm",
      llvm::cl::desc("Policy kernel blocks per SM (caps registers; 0: none)"),
      llvm::cl::init(6)};
  Option<std::string> matmul{
      *this, "matmul",
      llvm::cl::desc("Policy linear layers: fma (CUDA cores) or tf32x3 "
                     "(tensor cores, mma.sync with 3xTF32)"),
      llvm::cl::init("fma")};
  Option<bool> fuseAdvanceEngine{
      *this, "fuse-advance-engine",
      llvm::cl::desc("Advance and derive in one kernel per step"),
      llvm::cl::init(true)};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("The proof loop: step (every slot in lockstep) or "
                     "persistent (one kernel runs each slot to the end)"),
      llvm::cl::init("step")};
  /// Stop before the upstream NVVM lowering (the gpu.module stays as
  /// scf/arith/memref/gpu ops).
  Option<bool> stopBeforeNvvm{*this, "stop-before-nvvm",
                              llvm::cl::desc("Leave the gpu.module unlowered"),
                              llvm::cl::init(false)};
};

/// eval-fold-atom-embedding, eval-fuse-step, eval-outline-engine-cond,
/// eval-plan-buffers, eval-lower-to-gpu, then (unless stopBeforeNvvm)
/// convert-gpu-to-nvvm with bare-pointer kernel arguments and
/// gpu-module-to-binary{format=isa}: the module ends with a gpu.binary
/// holding the PTX.
void buildEvalGpuPipeline(OpPassManager &pm,
                          const EvalGpuPipelineOptions &options);

/// Registers what the pipeline needs besides the eval dialect, for tools
/// that do not register everything (proofc): the dialects it creates, their
/// conversions to LLVM, the NVVM target and the LLVM IR translations.
void registerEvalGpuPipelineDependencies(DialectRegistry &registry);

/// The libdevice this build was configured with (PROOFC_LIBDEVICE).
std::string defaultLibdevicePath();

/// Registers every eval pass (registerEvalTransformsPasses(), generated) and
/// the pipeline `eval-gpu-pipeline`.
void registerEvalPasses();

#define GEN_PASS_REGISTRATION
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"

} // namespace mlir::eval

#endif // PROOFC_DIALECT_EVAL_TRANSFORMS_PASSES_H
