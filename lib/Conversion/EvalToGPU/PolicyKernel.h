//===- PolicyKernel.h - eval.score_select as a gpu.func ---------*- C++ -*-===//
//
// Generates the policy kernel `score_select` (docs/gpu-kernels.md) from the
// encoder an eval.score_select names: scf/arith/math/memref/gpu ops, one
// block per slot, lowered to PTX by the upstream NVVM pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/MathExtras.h"

#include <string>

namespace mlir::eval {

struct PolicyKernel {
  gpu::GPUFuncOp func;
  /// The launch's arguments in the bundle's form ("buf:state", "sym:E", ...).
  SmallVector<std::string> args;
  SmallVector<std::string> grid; ///< blocks: the product of the factors
  int64_t block = 0;              ///< threads per block
  int64_t sharedBytes = 0;        ///< dynamic shared memory per block
};

/// slot.cu's device function that the persistent policy kernel calls.
inline constexpr llvm::StringLiteral kSlotStepFunction =
    "proofc_slot_advance_engine";
/// The most shared memory a block may have (sm_90), and slot.cu's own
/// static shared memory at most (its derive's is the kernel's dynamic one).
inline constexpr int64_t kMaxSharedPerBlock = 227 * 1024;
inline constexpr int64_t kSlotStaticSharedBytes = 1024;

/// Bytes of engine.cu's DeriveScratch (its kScratchWords, which a
/// static_assert ties to the struct) for A atoms, S states and a block of
/// `threads`: the persistent kernel lends the derive that much of its
/// dynamic shared memory.
inline int64_t deriveScratchBytes(int64_t A, int64_t S, int64_t threads) {
  int64_t W = 3 * A, table = llvm::PowerOf2Ceil(2 * (S + threads));
  return 4 * (14 + W + S * W + S + threads * W + 3 * threads + 2 * table + 5);
}

/// Adds `gpu.func @<name>` for `op` to `module`. `guard` is the flag buffer
/// the kernel checks first; a block is `groups` warps whose threads each
/// encode `statesPerThread` states; a slot's children are spread over
/// several blocks, whose logits meet in `logitsBuffer` (f32 [B, S]) and
/// whose arrivals are counted in `arrivalsBuffer` (i32 [B], zero between
/// steps); `minBlocksPerSm` > 0 asks ptxas to fit that many blocks on an SM.
/// With `slotStepArgs` (bundle argument strings, appended to the kernel's)
/// the kernel is the persistent form: one block per slot loops score ->
/// kSlotStepFunction(slot, args) until the function returns 0 (it takes no
/// logits or arrivals buffers: a block is its slot's only one), `args`
/// pointing at slotStepArgs' values, 8 bytes each, in the kernel's shared
/// memory; its rows are `sharedBytes` of dynamic shared memory.
/// Fails with a diagnostic on `op` for an encoder the generator does not
/// implement or a shape past the kernel's limits.
FailureOr<PolicyKernel>
buildPolicyKernel(ScoreSelectOp op, gpu::GPUModuleOp module, StringRef name,
                  StringRef guard, int64_t groups, int64_t statesPerThread,
                  int64_t minBlocksPerSm, StringRef logitsBuffer,
                  StringRef arrivalsBuffer,
                  ArrayRef<std::string> slotStepArgs = {});

} // namespace mlir::eval

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_H
