//===- BundleCompiler.h - An eval program -> a bundle, in memory -*- C++
//-*-===//
//
// `proofc compile` writes what this returns; `proofc run --device cuda`
// hands the bundle to the CUDA backend without a file. Parses and verifies
// the program, specializes its shapes, exports its ProgramSpec, runs
// buildEvalGpuPipeline (the pipeline `proofc-opt --eval-gpu-pipeline` runs,
// with the same options and defaults) and exports the bundle. Diagnostics
// are printed one per line (`file:line:col: error: ...`).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_BUNDLECOMPILER_H
#define PROOFC_TOOLS_PROOFC_BUNDLECOMPILER_H

#include "bundle/Bundle.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include <optional>
#include <string>

namespace proofc::driver {

struct BundleCompilerOptions {
  /// The pipeline's options as EvalPasses.td declares them (defaults
  /// included; `auto`/-1 ones are chosen by the passes from the program,
  /// GpuHeuristics.h). An empty lower.libdevice is the configured toolkit's.
  mlir::eval::EvalGpuPipelineOptions pipeline;
  bool keepMlir = false; ///< fill CompiledProgram::loweredMlir
  /// Fill CompiledProgram::ptx: the program must have one PTX module (not
  /// a tail hand-off's second).
  bool keepPtx = false;
};

struct CompiledProgram {
  Bundle bundle;           ///< verified (serialized and parsed back)
  std::string ptx;         ///< the policy module's PTX (keepPtx)
  std::string loweredMlir; ///< the module after the pipeline (keepMlir)
};

/// Returns nullopt once the diagnostics are printed; throws proofc::Error
/// when the file or libdevice cannot be read.
std::optional<CompiledProgram>
compileProgramToBundle(const std::string &path,
                       const BundleCompilerOptions &options);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_BUNDLECOMPILER_H
