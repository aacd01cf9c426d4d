//===- PolicyKernel.h - eval.score_select as a gpu.func ---------*- C++ -*-===//
//
// Generates the policy kernel `proofc_policy` (docs/gpu-kernels.md) from the
// encoder an eval.score_select names: scf/arith/math/memref/gpu ops, one
// block per slot, lowered to PTX by the upstream NVVM pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "proofc/contract/kernel_abi.h"

#include <string>

namespace mlir::eval {

struct PolicyKernel {
  gpu::GPUFuncOp func;
  /// The launch's arguments in the bundle's form ("buf:state", "sym:E", ...).
  SmallVector<std::string> args;
  SmallVector<std::string> grid; ///< blocks: the product of the factors
  int64_t block = 0;             ///< threads per block
  int64_t sharedBytes = 0;       ///< dynamic shared memory per block
  /// The step form's parts a slot (grid B x parts) and children a part
  /// (kernel_abi.h's policyParts); 1 and S for the persistent form.
  int64_t parts = 1, childrenPerPart = 0;
};

/// slot.cu's device function that the persistent policy kernel calls.
inline constexpr llvm::StringLiteral kSlotStepFunction =
    PROOFC_ABI_SLOT_FUNCTION;
/// slot.cu's device function that the advancing step policy kernel calls.
inline constexpr llvm::StringLiteral kPolicyAdvanceFunction =
    PROOFC_ABI_POLICY_ADVANCE_FUNCTION;

/// Bytes of engine.cu's DeriveScratch for A atoms, S states and a block of
/// `threads` (kernel_abi.h's deriveScratchWords, which a static_assert in
/// engine.cu ties to the struct): the persistent kernel lends the derive
/// that much of its dynamic shared memory.
inline int64_t deriveScratchBytes(int64_t A, int64_t S, int64_t threads,
                                  bool keptInScratch = true) {
  return 4 * static_cast<int64_t>(proofc_abi::deriveScratchWords(
                 static_cast<int>(A), static_cast<int>(S),
                 static_cast<int>(threads), keptInScratch));
}

/// Adds `gpu.func @<name>` for `op` to `module`. `guard` is the flag buffer
/// the kernel checks first; a block is `groups` warps whose threads each
/// encode `statesPerThread` states; a slot's children are spread over
/// several blocks, whose logits meet in `logitsBuffer` (f32 [B, S]) and
/// whose arrivals are counted in `arrivalsBuffer` (i32 [B], zero between
/// steps); with `policyGridBuffer` (i32 [kPolicyGridWords]) and
/// `policyListBuffer` (i32 [B]) the step form's grid follows them
/// (kernel_abi.h's "step policy kernel's grid", where the advance-engine
/// resizes it), without (empty) it is the plan's, every slot's parts;
/// `minBlocksPerSm` > 0 asks ptxas to fit that many blocks on an SM.
/// With `slotStepArgs` (bundle argument strings, appended to the kernel's)
/// the kernel is the persistent form: one block per slot loops score ->
/// kSlotStepFunction(slot, args) until the function returns 0 (it takes no
/// logits or arrivals buffers: a block is its slot's only one), `args`
/// pointing at slotStepArgs' values, 8 bytes each, in the kernel's shared
/// memory; with `policyGridBuffer` and `policyListBuffer` there (the
/// advance-engine's grid words and list, kernel_abi.h's EngineGridWord)
/// block i runs the list's i-th slot, and the blocks past the list's count
/// return: the tail hand-off's kernel (docs/gpu-kernels.md), whose guard
/// is the words' buffer (its first word, the count); its rows are
/// `sharedBytes` of dynamic shared memory, at most
/// `maxSharedPerBlock` (the chip's, proofc/Target/ChipLimits.h) with the
/// slot function's static shared memory. Fails with a diagnostic on `op`
/// for an encoder the generator does not implement or a shape past the
/// kernel's limits. With `advances`, `slotStepArgs` are the advance's
/// words instead (kernel_abi.h's PROOFC_ABI_POLICY_ADVANCE_ARGS; their
/// ChildrenPerPart is set to the kernel's): the step form, whose block that
/// selects a slot's action calls kPolicyAdvanceFunction(slot, args) and
/// returns (docs/gpu-kernels.md, "The advance in the policy"); its rows, the
/// derive's scratch over them and the arguments are `sharedBytes` of dynamic
/// shared memory (PolicyAdvanceLayout).
FailureOr<PolicyKernel>
buildPolicyKernel(ScoreSelectOp op, gpu::GPUModuleOp module, StringRef name,
                  StringRef guard, int64_t groups, int64_t statesPerThread,
                  int64_t minBlocksPerSm, StringRef logitsBuffer,
                  StringRef arrivalsBuffer, StringRef policyGridBuffer,
                  StringRef policyListBuffer, int64_t maxSharedPerBlock,
                  ArrayRef<std::string> slotStepArgs = {},
                  bool advances = false);

} // namespace mlir::eval

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_H
