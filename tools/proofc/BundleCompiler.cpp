//===- BundleCompiler.cpp - An eval program -> a bundle, in memory --------===//
#include "BundleCompiler.h"

#include "OneLineDiagnostics.h"
#include "ProgramLoader.h"

#include "Fail.h"
#include "Provenance.h"
#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Target/ExportBundle.h"
#include "proofc/Target/ExportProgramSpec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace proofc;

std::string driver::autoMatmul(const ProgramSpec &spec) {
  bool aligned = false;
  for (const PolicyOp &op : spec.policy.encoder)
    if (op.kind == PolicyOpKind::Linear) {
      if (op.in % 8 != 0 || op.out % 8 != 0)
        return "fma";
      aligned = true;
    }
  return aligned ? "tf32x3" : "fma";
}

std::string driver::autoSchedule(const std::string &matmul, int64_t B) {
  return matmul == "tf32x3" && B <= 256 ? "persistent" : "step";
}

std::optional<driver::CompiledProgram>
driver::compileProgramToBundle(const std::string &path,
                               const BundleCompilerOptions &options) {
  std::unique_ptr<llvm::MemoryBuffer> file = readProgramFile(path);
  std::string libdevice = options.libdevice.empty()
                              ? mlir::eval::defaultLibdevicePath()
                              : options.libdevice;
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
  // The host backend's view, taken before the pipeline rewrites the program.
  mlir::FailureOr<ProgramSpec> spec =
      mlir::eval::exportProgramSpec(programs.front());
  if (mlir::failed(spec))
    return std::nullopt;

  mlir::PassManager pm(&context);
  mlir::eval::EvalGpuPipelineOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.features = options.features;
  pipeline.libdevice = libdevice;
  const std::string matmul =
      options.matmul == "auto" ? driver::autoMatmul(*spec) : options.matmul;
  const int64_t B = spec->shape.B;
  // The persistent kernel replaces the fused step: --unfused-step keeps
  // the step schedule.
  const std::string schedule =
      options.schedule != "auto"    ? options.schedule
      : !options.fuseAdvanceEngine ? "step"
                                    : autoSchedule(matmul, B);
  pipeline.matmul = matmul;
  pipeline.groups = options.groups == kAutoGroups
                        ? autoGroups(matmul, B, schedule)
                        : options.groups;
  pipeline.statesPerThread = options.statesPerThread;
  pipeline.engineThreads = options.engineThreads;
  pipeline.minBlocksPerSm = options.minBlocksPerSm == kAutoBlocksPerSm
                                ? autoBlocksPerSm(matmul, B, schedule)
                                : options.minBlocksPerSm;
  pipeline.fuseAdvanceEngine = options.fuseAdvanceEngine;
  pipeline.schedule = schedule;
  mlir::eval::buildEvalGpuPipeline(pm, pipeline);
  if (mlir::failed(pm.run(*module)))
    return std::nullopt;

  CompiledProgram out;
  mlir::FailureOr<std::string> ptx = mlir::eval::exportPtx(*module);
  mlir::FailureOr<Bundle> bundle = mlir::eval::exportBundle(*module, *spec);
  if (mlir::failed(ptx) || mlir::failed(bundle))
    return std::nullopt;
  out.ptx = std::move(*ptx);
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
