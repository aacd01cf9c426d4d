//===- BundleCompiler.h - An eval program -> a bundle, in memory -*- C++
//-*-===//
//
// `proofc compile` writes what this returns; `proofc run --device cuda`
// hands the bundle to the CUDA backend without a file. Parses and verifies
// the program, exports its ProgramSpec, runs buildEvalGpuPipeline and
// exports the bundle. Diagnostics are printed one per line
// (`file:line:col: error: ...`).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_BUNDLECOMPILER_H
#define PROOFC_TOOLS_PROOFC_BUNDLECOMPILER_H

#include "proofc/runtime/Bundle.h"

#include <cstdint>
#include <optional>
#include <string>

namespace proofc::driver {

inline constexpr int64_t kAutoBlocksPerSm = -1;

/// The register cap for B slots: more blocks per SM (fewer registers each)
/// pay off once there are enough of them to fill the SMs.
inline int64_t autoBlocksPerSm(int64_t B) { return B >= 1024 ? 8 : 6; }

struct BundleCompilerOptions {
  std::string chip = "sm_90";
  std::string features = "+ptx86";
  std::string libdevice; ///< empty: the configured CUDA toolkit's
  // Policy kernel: 4 warps of 4 states per thread, with a register cap of
  // 6 blocks per SM below B = 1024 and 8 from there on (kAutoBlocksPerSm):
  // measured best of the V10 sweeps on an H100 (docs/performance.md).
  int64_t groups = 4;
  int64_t statesPerThread = 4;
  int64_t engineThreads = 128;
  /// Policy kernel blocks per SM: 0 = no register cap, kAutoBlocksPerSm =
  /// chosen from the program's B (autoBlocksPerSm).
  int64_t minBlocksPerSm = kAutoBlocksPerSm;
  bool fuseAdvanceEngine = true; ///< two kernels per step instead of three
  bool keepMlir = false;      ///< fill CompiledProgram::loweredMlir
};

struct CompiledProgram {
  Bundle bundle;           ///< verified (serialized and parsed back)
  std::string ptx;         ///< the policy module's PTX
  std::string loweredMlir; ///< the module after the pipeline (keepMlir)
};

/// Returns nullopt once the diagnostics are printed; throws proofc::Error
/// when the file or libdevice cannot be read.
std::optional<CompiledProgram>
compileProgramToBundle(const std::string &path,
                       const BundleCompilerOptions &options);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_BUNDLECOMPILER_H
