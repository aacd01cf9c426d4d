//===- BundleCompiler.cpp - An eval program -> a bundle, in memory --------===//
#include "BundleCompiler.h"

#include "OneLineDiagnostics.h"
#include "ProgramLoader.h"

#include "outputs/Provenance.h"
#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Target/ExportBundle.h"
#include "proofc/Target/ExportProgramSpec.h"
#include "support/Fail.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace proofc;

std::optional<driver::CompiledProgram>
driver::compileProgramToBundle(const std::string &path,
                               const BundleCompilerOptions &options) {
  std::unique_ptr<llvm::MemoryBuffer> file = readProgramFile(path);
  mlir::eval::EvalGpuPipelineOptions pipeline = options.pipeline;
  if (pipeline.lower.libdevice.empty())
    pipeline.lower.libdevice = mlir::eval::defaultLibdevicePath();
  const std::string &libdevice = pipeline.lower.libdevice;
  if (!llvm::sys::fs::exists(libdevice))
    fail("--libdevice {}: not found (the policy kernel links libdevice for "
         "exp/log; pass the CUDA toolkit's nvvm/libdevice/libdevice.10.bc)",
         libdevice);

  mlir::DialectRegistry registry;
  mlir::eval::registerEvalGpuPipelineDependencies(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();    // one small program: no thread pool
  context.printOpOnDiagnostic(false); // one line per problem
  driver::OneLineDiagnostics handler(&context);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseProgram(std::move(file), context);
  if (!module)
    return std::nullopt;
  auto programs = llvm::to_vector(module->getOps<mlir::eval::ProgramOp>());
  if (programs.size() != 1) {
    mlir::emitError(module->getLoc())
        << "expected exactly one 'eval.program', found " << programs.size();
    return std::nullopt;
  }
  // The shapes first (the pipeline's first pass, which it runs again as a
  // no-op): the ProgramSpec, the host backend's view and the plan's shape,
  // is taken from the specialized program before the rest of the pipeline
  // rewrites it, so B (--slots) is one value in the kernels and the plan.
  mlir::PassManager specialize(&context);
  specialize.nest<mlir::eval::ProgramOp>().addPass(
      mlir::eval::createEvalSpecializeShapesPass(pipeline.shapes));
  if (mlir::failed(specialize.run(*module)))
    return std::nullopt;
  mlir::FailureOr<ProgramSpec> spec =
      mlir::eval::exportProgramSpec(programs.front());
  if (mlir::failed(spec))
    return std::nullopt;

  mlir::PassManager pm(&context);
  mlir::eval::buildEvalGpuPipeline(pm, pipeline);
  if (mlir::failed(pm.run(*module)))
    return std::nullopt;

  CompiledProgram out;
  if (options.keepPtx) {
    mlir::FailureOr<std::string> ptx = mlir::eval::exportPtx(*module);
    if (mlir::failed(ptx))
      return std::nullopt;
    out.ptx = std::move(*ptx);
  }
  mlir::FailureOr<Bundle> bundle = mlir::eval::exportBundle(*module, *spec);
  if (mlir::failed(bundle))
    return std::nullopt;
  out.bundle = std::move(*bundle);
  out.bundle.proofcVersion = proofcVersion();
  out.bundle.source = llvm::sys::path::filename(path).str();
  if (options.keepMlir) {
    llvm::raw_string_ostream os(out.loweredMlir);
    module->print(os);
  }
  // The runtime's own verifier: a bundle this compiler writes must load.
  out.bundle =
      parseBundle(serializeBundle(out.bundle), path + " (compiled bundle)");
  return out;
}
