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

/// The pipeline's options: those of its passes, declared once in
/// EvalPasses.td (name, type, default, description) and generated as these
/// option structs. `proofc compile` binds its flags to these fields, and
/// proofc-opt's `eval-gpu-pipeline{key=value ...}` hands each key to the pass
/// that declares it, so both run one pipeline with one set of defaults. The
/// `auto`/-1 defaults are chosen by the passes from the program
/// (GpuHeuristics.h).
struct EvalGpuPipelineOptions {
  EvalSpecializeShapesPassOptions shapes; ///< slots
  EvalPlanBuffersPassOptions plan;        ///< matmul
  EvalLowerToGpuPassOptions lower;        ///< chip ... schedule
  /// The pipeline's own option `stop-before-nvvm`: leave the gpu.module
  /// unlowered (scf/arith/memref/gpu ops), no PTX.
  bool stopBeforeNvvm = false;
};

/// eval-specialize-shapes, eval-fold-atom-embedding, eval-fuse-step,
/// eval-outline-engine-cond, eval-plan-buffers, eval-lower-to-gpu, then
/// (unless stopBeforeNvvm) convert-gpu-to-nvvm with bare-pointer kernel
/// arguments and gpu-module-to-binary{format=isa}: the module ends with a
/// gpu.binary holding the PTX.
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
