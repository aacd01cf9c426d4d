//===- Tiling.h - how a policy-kernel block holds its rows ------*- C++ -*-===//
//
// The numbers every part of the generator shares: a block of `warps` warps
// tiles the (state, feature) plane (Tiling: Q threads a row, F features a
// thread, T rows a thread), chosen from the encoder's widths; and where the
// persistent kernel keeps its rows, enc(parent), logits and the slot
// function's arguments in its dynamic shared memory (PersistentLayout),
// which the entry point sizes and the generated code addresses alike.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_TILING_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_TILING_H

#include "EncoderShape.h"

#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"
#include "proofc/contract/kernel_abi.h"

namespace mlir::eval::policy_kernel {

/// The persistent kernel's dynamic shared memory (rows, enc(parent), logits,
/// the slot function's arguments).
constexpr StringLiteral kPolicyRowsSymbol = "proofc_policy_rows";

constexpr int64_t kWarp = 32;
/// States of at most this many atoms are encoded with the atom loop unrolled.
constexpr int64_t kUnrolledAtoms = 16;
/// Folded rows a warp's row group of the step form's policy kernel embeds
/// per loop iteration (the persistent kernel: one), every table read of
/// them in flight together (Embedding.cpp): the embedding needs
/// fewer registers than the second linear's k-step loop, so the second
/// row's 6 x F table words cost no warps (docs/performance.md, row 41).
constexpr int64_t kFoldedRowsInFlight = 2;
/// Inputs of a linear layer per loop iteration (unrolled inside): enough
/// loads in flight without hoisting a whole layer's weights into registers.
constexpr int64_t kInputsPerIteration = 16;

/// How a block tiles the (state, feature) plane: Q threads share a state row,
/// each owning F consecutive features of T rows; a warp holds R = 32 / Q row
/// groups. Rows are read with V-wide (16-byte when V = 4) loads.
struct Tiling {
  int64_t F = 1, V = 1, Q = 1, R = 1, T = 1, warps = 1;
  /// How the linear layers multiply (eval-plan-buffers' matmul): FP32 on
  /// the CUDA cores, or by mma.sync with each operand split into two TF32
  /// parts (m16n8k8) or two f16 parts (m16n8k16), three products a tile and
  /// k-step. On the tensor cores a warp's 16 rows are one m16 tile, and the
  /// activation rows are padded by 4 floats so that the A-fragment loads (8
  /// rows x 4 columns a load) hit 32 different banks.
  enum class Matmul { Fma, Tf32x3, F16x3 };
  Matmul matmul = Matmul::Fma;
  bool tensorCores() const { return matmul != Matmul::Fma; }
  /// The mma tile's k: the columns of A one k-step multiplies.
  int64_t mmaK() const { return proofc_abi::mmaK(matmul == Matmul::F16x3); }
  /// Tensor-core k-steps per iteration of a layer's loop, their weight
  /// fragments loaded first (one L2 round trip for all of them); each
  /// k-step in flight holds 4 registers a lane per n-tile
  /// (chooseStepsInFlight, GpuHeuristics.h).
  int64_t stepsInFlight = kMaxStepsInFlight;
  int64_t width() const { return Q * F; }
  int64_t actStride() const { return tensorCores() ? width() + 4 : width(); }
  int64_t rowsPerWarp() const { return R * T; }
  int64_t rowsPerPass() const { return warps * R * T; }
  /// Children per block: the first row of every block is the parent.
  int64_t childrenPerBlock() const { return rowsPerPass() - 1; }
  /// The step form's blocks a slot of S children needs: its grid is B x
  /// this (kernel_abi.h's policyParts).
  int64_t parts(int64_t S) const {
    return proofc_abi::policyParts(static_cast<int>(S),
                                   static_cast<int>(childrenPerBlock()));
  }
  int64_t threads() const { return warps * kWarp; }
};

Tiling chooseTiling(const EncoderShape &shape, int64_t warps, int64_t T);

/// Byte offsets in the persistent kernel's dynamic shared memory: the
/// derive's (engine.cu's DeriveScratch, whose first member is the slot's
/// kept states and second its state, which the encoding reads from there)
/// at 0, then the rows, enc(parent), the logits and the slot function's
/// arguments.
struct PersistentLayout {
  int64_t rows = 0, parent = 0, logits = 0, args = 0, total = 0;
};

PersistentLayout persistentLayout(const Tiling &tl, int64_t A, int64_t S,
                                  int64_t numArgs);

/// Byte offsets in the advancing step policy kernel's dynamic shared memory:
/// the step form's rows, enc(parent) and (where the rows have no padding)
/// the "last block" flag from 0; then, once the block has selected, the
/// derive's scratch (engine.cu's DeriveScratch, its kept states in
/// `derived`) over them from 0 and slot.cu's advance arguments after it.
struct PolicyAdvanceLayout {
  int64_t parent = 0, flag = 0, args = 0, total = 0;
};

PolicyAdvanceLayout policyAdvanceLayout(const Tiling &tl, int64_t A, int64_t S,
                                        int64_t numArgs);

} // namespace mlir::eval::policy_kernel

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_TILING_H
