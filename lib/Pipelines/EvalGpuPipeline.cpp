//===- EvalGpuPipeline.cpp - The eval program -> PTX pipeline -------------===//
//
// The order matters: the shapes first (every later pass reads static types
// and the program's B), folding next (the kernel reads folded tables), fusion
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
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::eval;

namespace {

/// The passes of the pipeline that take options, configured.
struct ConfiguredPasses {
  std::unique_ptr<Pass> shapes, plan, lower;
  bool stopBeforeNvvm = false;
};

/// The one pipeline, whichever way its options came.
void addEvalGpuPipeline(OpPassManager &pm, ConfiguredPasses passes) {
  OpPassManager &program = pm.nest<ProgramOp>();
  program.addPass(std::move(passes.shapes));
  program.addPass(createEvalFoldAtomEmbeddingPass());
  program.addPass(createEvalFuseStepPass());
  program.addPass(createEvalOutlineEngineCondPass());
  program.addPass(std::move(passes.plan));
  pm.addPass(std::move(passes.lower));
  if (passes.stopBeforeNvvm)
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

/// Splits `key=value key2={...} ...` at the spaces outside braces and quotes.
SmallVector<StringRef> splitOptions(StringRef text) {
  SmallVector<StringRef> out;
  size_t start = 0, depth = 0;
  char quote = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      depth -= depth > 0;
    } else if (c == ' ' && depth == 0) {
      StringRef token = text.slice(start, i).trim();
      if (!token.empty())
        out.push_back(token);
      start = i + 1;
    }
  }
  return out;
}

/// The option keys a pass declares, read from its textual form
/// (`name{key=value ...}`), which lists every option.
llvm::StringSet<> optionKeys(Pass &pass) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  llvm::StringSet<> keys;
  StringRef body = StringRef(text).split('{').second;
  body.consume_back("}");
  for (StringRef token : splitOptions(body))
    keys.insert(token.split('=').first);
  return keys;
}

/// proofc-opt's `eval-gpu-pipeline{...}`: each key goes to the pass that
/// declares it (EvalPasses.td), `stop-before-nvvm` to the pipeline.
LogicalResult
buildFromText(OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
  ConfiguredPasses passes{createEvalSpecializeShapesPass(),
                          createEvalPlanBuffersPass(),
                          createEvalLowerToGpuPass()};
  for (StringRef token : splitOptions(text)) {
    auto [key, value] = token.split('=');
    if (key == "stop-before-nvvm") {
      if (value.empty() || value == "true" || value == "1")
        passes.stopBeforeNvvm = true;
      else if (value == "false" || value == "0")
        passes.stopBeforeNvvm = false;
      else
        return errorHandler("eval-gpu-pipeline: stop-before-nvvm takes true "
                            "or false, got '" +
                            value + "'");
      continue;
    }
    Pass *owner = nullptr;
    for (Pass *pass :
         {passes.shapes.get(), passes.plan.get(), passes.lower.get()})
      if (optionKeys(*pass).contains(key))
        owner = pass;
    if (!owner)
      return errorHandler("eval-gpu-pipeline: no option '" + key +
                          "' (the options of eval-specialize-shapes, "
                          "eval-plan-buffers and eval-lower-to-gpu, and "
                          "stop-before-nvvm)");
    if (failed(owner->initializeOptions(token, errorHandler)))
      return failure();
  }
  addEvalGpuPipeline(pm, std::move(passes));
  return success();
}

} // namespace

void eval::buildEvalGpuPipeline(OpPassManager &pm,
                                const EvalGpuPipelineOptions &options) {
  addEvalGpuPipeline(pm, {createEvalSpecializeShapesPass(options.shapes),
                          createEvalPlanBuffersPass(options.plan),
                          createEvalLowerToGpuPass(options.lower),
                          options.stopBeforeNvvm});
}

void eval::registerEvalPasses() {
  registerEvalTransformsPasses();
  registerPassPipeline(
      "eval-gpu-pipeline",
      "The eval program to launches and PTX (proofc compile's pipeline); "
      "takes the options of eval-specialize-shapes, eval-plan-buffers and "
      "eval-lower-to-gpu, and stop-before-nvvm",
      buildFromText,
      [](function_ref<void(const mlir::detail::PassOptions &)>) {});
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
