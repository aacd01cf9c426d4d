//===- ChipLimits.h - Per-chip limits of the GPU lowering -------*- C++ -*-===//
//
// The hardware limits the GPU lowering must respect, by NVVM chip (the
// `--chip` of `proofc compile`): the most shared memory one block may have
// (static plus dynamic, after opting in) and the 32-bit registers of an SM,
// and the first PTX ISA that knows it. Values from NVIDIA's CUDA C++
// Programming Guide, "Compute Capabilities", table "Technical
// Specifications per Compute Capability", and the PTX ISA's "Release
// Notes" (the version each target was added in). A chip not in
// the table is refused (docs/errors.md): a guess would let a kernel be
// generated that the device cannot launch.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TARGET_CHIPLIMITS_H
#define PROOFC_TARGET_CHIPLIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace proofc {

/// The most 32-bit registers a thread may use (the PTX limit; ptxas's
/// -maxrregcount takes no more).
inline constexpr int64_t kMaxRegistersPerThread = 255;

struct ChipLimits {
  llvm::StringLiteral chip;  ///< NVVM chip, "sm_90"
  int64_t maxSharedPerBlock; ///< bytes, static + opted-in dynamic
  int64_t registersPerSm;    ///< 32-bit registers of one SM
  int64_t minPtx;            ///< first PTX ISA with the target, x 10 (8.7: 87)

  /// The registers a thread may use so that `blocks` blocks of `threads`
  /// threads fit on one SM: the SM's registers over their threads, in 8s
  /// (ptxas allocates them 8 at a time), at most 255 (the PTX limit). The
  /// lowering caps slot.cu's code with it (-maxrregcount), since the
  /// linker refuses a callee that may use more than its kernel's cap.
  int64_t registersPerThread(int64_t blocks, int64_t threads) const {
    int64_t regs = registersPerSm / (blocks * threads) / 8 * 8;
    return regs < kMaxRegistersPerThread ? regs : kMaxRegistersPerThread;
  }
};

/// Every chip the lowering knows, by compute capability.
inline llvm::ArrayRef<ChipLimits> knownChips() {
  static constexpr ChipLimits kChips[] = {
      {"sm_80", 163 * 1024, 65536, 70},  {"sm_86", 99 * 1024, 65536, 71},
      {"sm_87", 163 * 1024, 65536, 74},  {"sm_89", 99 * 1024, 65536, 78},
      {"sm_90", 227 * 1024, 65536, 78},  {"sm_90a", 227 * 1024, 65536, 80},
      {"sm_100", 227 * 1024, 65536, 86}, {"sm_120", 99 * 1024, 65536, 87},
  };
  return kChips;
}

/// The PTX ISA the lowering targets unless told (`--ptx-features`): 8.6, or
/// the chip's first where that is later (sm_120's 8.7); x 10, as minPtx.
inline constexpr int64_t kDefaultPtx = 86;
inline int64_t defaultPtx(const ChipLimits &c) {
  return std::max(kDefaultPtx, c.minPtx);
}

/// NVVM's target feature for PTX ISA `version` (x 10): "+ptx87".
inline constexpr llvm::StringLiteral kPtxFeaturePrefix = "+ptx";
inline std::string ptxFeature(int64_t version) {
  return kPtxFeaturePrefix.str() + std::to_string(version);
}

/// The limits of `chip`, or null for a chip not in the table.
inline const ChipLimits *findChipLimits(llvm::StringRef chip) {
  for (const ChipLimits &c : knownChips())
    if (c.chip == chip)
      return &c;
  return nullptr;
}

} // namespace proofc

#endif // PROOFC_TARGET_CHIPLIMITS_H
