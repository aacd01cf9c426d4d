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

/// Options chosen from the program when left at these values.
inline constexpr int64_t kAutoBlocksPerSm = -1;
inline constexpr int64_t kAutoGroups = -1;
/// eval-lower-to-gpu's groups=0: the fewest warps that hold a slot's S
/// children and its parent in one block (the persistent kernel).
inline constexpr int64_t kFitGroups = 0;

/// How the policy multiplies its linear layers: "tf32x3" (tensor cores)
/// when every linear is 8-aligned (the mma tile), else "fma".
std::string autoMatmul(const ProgramSpec &spec);

/// The policy kernel's shape for B slots, the measured best of the V10
/// sweeps on an H100 (docs/performance.md): with FMA layers 4 warps per
/// block, 6 blocks per SM below B = 1024 and 8 from there on; with the
/// tensor cores small blocks once the slots fill the SMs (8 warps and 2
/// blocks per SM below B = 1024, 2 and 10 below 4096, 1 and 16 from there).
/// The persistent kernel's blocks hold all of a slot's rows: its groups are
/// left to the generator (kFitGroups), and 2 blocks share an SM.
inline int64_t autoGroups(const std::string &matmul, int64_t B,
                          const std::string &schedule = "step") {
  if (schedule == "persistent")
    return kFitGroups;
  if (matmul != "tf32x3")
    return 4;
  return B < 1024 ? 8 : B < 4096 ? 2 : 1;
}
inline int64_t autoBlocksPerSm(const std::string &matmul, int64_t B,
                               const std::string &schedule = "step") {
  if (schedule == "persistent")
    return 2;
  if (matmul != "tf32x3")
    return B >= 1024 ? 8 : 6;
  return B < 1024 ? 2 : B < 4096 ? 10 : 16;
}

/// The proof loop's schedule for B slots: "persistent" (one kernel runs
/// each slot to the end of the pool) while its blocks, 2 per SM, are all
/// resident on an H100 (132 SMs) at once and the policy is on the tensor
/// cores (the FMA form's blocks of 8-row warps are too large to derive
/// in), else "step" (docs/performance.md).
std::string autoSchedule(const std::string &matmul, int64_t B);

struct BundleCompilerOptions {
  std::string chip = "sm_90";
  std::string features = "+ptx86";
  std::string libdevice; ///< empty: the configured CUDA toolkit's
  /// The policy's linear layers: "auto" (autoMatmul), "fma" (CUDA cores)
  /// or "tf32x3" (tensor cores).
  std::string matmul = "auto";
  /// Policy kernel warps per block and blocks per SM (the register cap;
  /// 0 = none): kAutoGroups / kAutoBlocksPerSm choose from the program's B
  /// (autoGroups, autoBlocksPerSm).
  int64_t groups = kAutoGroups;
  int64_t statesPerThread = 4; ///< FMA layers only (tensor cores: 16 rows/warp)
  int64_t engineThreads = 128;
  int64_t minBlocksPerSm = kAutoBlocksPerSm;
  bool fuseAdvanceEngine = true; ///< two kernels per step instead of three
  /// The proof loop: "auto" (autoSchedule), "step" or "persistent".
  std::string schedule = "auto";
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
