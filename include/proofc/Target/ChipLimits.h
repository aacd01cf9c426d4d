//===- ChipLimits.h - Per-chip limits of the GPU lowering -------*- C++ -*-===//
//
// The hardware limits the GPU lowering must respect, by NVVM chip (the
// `--chip` of `proofc compile`): the most shared memory one block may have
// (static plus dynamic, after opting in) and the 32-bit registers of an SM.
// Values from NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities",
// table "Technical Specifications per Compute Capability". A chip not in
// the table is refused (docs/errors.md): a guess would let a kernel be
// generated that the device cannot launch.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TARGET_CHIPLIMITS_H
#define PROOFC_TARGET_CHIPLIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace proofc {

/// The most 32-bit registers a thread may use (the PTX limit; ptxas's
/// -maxrregcount takes no more).
inline constexpr int64_t kMaxRegistersPerThread = 255;

struct ChipLimits {
  llvm::StringLiteral chip;  ///< NVVM chip, "sm_90"
  int64_t maxSharedPerBlock; ///< bytes, static + opted-in dynamic
  int64_t registersPerSm;    ///< 32-bit registers of one SM

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
      {"sm_80", 163 * 1024, 65536},  {"sm_86", 99 * 1024, 65536},
      {"sm_87", 163 * 1024, 65536},  {"sm_89", 99 * 1024, 65536},
      {"sm_90", 227 * 1024, 65536},  {"sm_90a", 227 * 1024, 65536},
      {"sm_100", 227 * 1024, 65536}, {"sm_120", 99 * 1024, 65536},
  };
  return kChips;
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
