//===- EvalGpuPipeline.cpp - The eval program -> PTX pipeline -------------===//
//
// The order matters: folding first (the kernel reads folded tables), fusion
// before cond outlining (the rotation moves the fused engine), the plan
// before the lowering (launch arguments are buffers). The upstream tail
// lowers only the gpu.module: bare-pointer kernel arguments give the plain C
// signature of docs/gpu-kernels.md, and gpu-module-to-binary{format=isa}
// links libdevice (the #nvvm.target's `link`) and emits PTX text.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void eval::buildEvalGpuPipeline(OpPassManager &pm,
                                const EvalGpuPipelineOptions &options) {
  OpPassManager &program = pm.nest<ProgramOp>();
  program.addPass(createEvalFoldAtomEmbeddingPass());
  program.addPass(createEvalFuseStepPass());
  program.addPass(createEvalOutlineEngineCondPass());
  EvalPlanBuffersPassOptions plan;
  plan.matmul = options.matmul;
  program.addPass(createEvalPlanBuffersPass(plan));

  EvalLowerToGpuPassOptions lower;
  lower.chip = options.chip;
  lower.features = options.features;
  lower.libdevice = options.libdevice;
  lower.groups = options.groups;
  lower.statesPerThread = options.statesPerThread;
  lower.engineThreads = options.engineThreads;
  lower.minBlocksPerSm = options.minBlocksPerSm;
  lower.fuseAdvanceEngine = options.fuseAdvanceEngine;
  lower.schedule = options.schedule;
  pm.addPass(createEvalLowerToGpuPass(lower));
  if (options.stopBeforeNvvm)
    return;

  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  gpu.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  gpu.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gpu.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void eval::registerEvalPasses() {
  registerEvalTransformsPasses();
  PassPipelineRegistration<EvalGpuPipelineOptions>(
      "eval-gpu-pipeline",
      "The eval program to launches and PTX (proofc compile's pipeline)",
      buildEvalGpuPipeline);
}

void eval::registerEvalGpuPipelineDependencies(DialectRegistry &registry) {
  registry.insert<EvalDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  gpu::GPUDialect, index::IndexDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  scf::SCFDialect, ub::UBDialect>();
  // convert-gpu-to-nvvm lowers each loaded dialect through its interface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // gpu-module-to-binary: the #nvvm.target and the LLVM IR translation.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
