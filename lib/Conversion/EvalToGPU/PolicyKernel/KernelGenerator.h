//===- KernelGenerator.h - the policy kernel's generator --------*- C++ -*-===//
//
// KernelGenerator writes one policy kernel (gpu.func) for an EncoderShape
// and a Tiling: its state (the op, the shape, the views and per-thread
// values of the body) and its methods, one group a file:
//   KernelBody.cpp        the kernel: arguments, the guard, slots and parts
//   PersistentLoop.cpp    the persistent form: score, advance and derive a
//                         slot in one block until the pool is empty
//   RowAccess.cpp         the Q x F row layout: loads and stores of rows
//   Embedding.cpp         the atom embedding, summed over a state's goals
//   FmaLayers.cpp         relu / linear / layer_norm by fma on Q x F rows
//   TensorCoreLayers.cpp  linears by mma.sync 3xTF32 or 3xF16 in the C layout
//   Selection.cpp         the logits rows, the arrival, spec §4's select
// PolicyKernel.cpp (the entry point) checks the op, sizes the kernel and
// runs it. The ops come out in the order the methods' C++ creates them.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_KERNELGENERATOR_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_KERNELGENERATOR_H

#include "KernelBuilder.h"

namespace mlir::eval::policy_kernel {

class KernelGenerator : KernelBuilder {
public:
  KernelGenerator(ScoreSelectOp op, const EncoderShape &shape, int64_t A,
                  int64_t S, int64_t B, const Tiling &tiling,
                  gpu::GPUModuleOp module, LLVM::LLVMFuncOp slotStep,
                  LLVM::LLVMFuncOp policyAdvance, bool atomLayer,
                  bool gridWords, bool slotList)
      : KernelBuilder(op.getLoc(), OpBuilder::atBlockEnd(module.getBody())),
        op(op), shape(shape), A(A), S(S), B(B), tl(tiling), slotStep(slotStep),
        policyAdvance(policyAdvance), atomLayer(atomLayer),
        gridWords(gridWords), slotList(slotList) {}

  /// Emits the kernel with arguments `argTypes` (docs/gpu-kernels.md).
  gpu::GPUFuncOp emit(StringRef name, ArrayRef<Type> argTypes);

private:
  struct LayerTables {
    Value weight, bias; ///< base addresses (i64)
  };

  //===------------------------------------------------------------------===//
  // The kernel (KernelBody.cpp)
  //===------------------------------------------------------------------===//

  void emitBody();

  unsigned numTables() const;

  void makeViews(Value statePtr, Value derivedPtr, Value countPtr,
                 ArrayRef<Value> tablePtrs, Value actionPtr, Value logpPtr);

  /// A slot's part: its thread layout, the one-successor shortcut, then
  /// emitPart when the part has children. `k`, the slot's children (index),
  /// when the caller loaded it; else loaded here.
  void emitSlot(Value slot, Value part, Value k = Value());

  /// Part `part` of a slot: the parent (row 0) and the children
  /// part * (rows - 1) + row - 1; their logits go to the slot's global
  /// logits row, and the last of the slot's blocks to finish selects.
  void emitPart(Value slot, Value part, Value k, Value parts, Value tid);

  /// Item of block row `row` of part `childBase / rows-1`: 0 (the parent)
  /// for row 0, else child childBase + row - 1, as item child + 1.
  Value itemOfRow(Value row, Value childBase);

  /// Child childBase + row - 1 of block row `row` (row 0, the parent, maps
  /// to childBase).
  Value childOfRow(Value row, Value childBase);

  //===------------------------------------------------------------------===//
  // The persistent form (PersistentLoop.cpp)
  //===------------------------------------------------------------------===//

  /// The persistent kernel's dynamic shared memory (PersistentLayout).
  /// `extern __shared__`: it
  /// starts after all static shared memory, the linked function's included.
  void persistentSharedBases();

  /// The persistent kernel's block: score the slot, then advance and derive
  /// it (slot.cu's function, linked in), until the pool is empty.
  void emitPersistentLoop(Value slot, Value part, ValueRange slotStepArgs);

  //===------------------------------------------------------------------===//
  // The advancing form (PolicyAdvance.cpp)
  //===------------------------------------------------------------------===//

  /// The advancing kernel's dynamic shared memory (PolicyAdvanceLayout): the
  /// rows, enc(parent) and the "last block" flag.
  void policyAdvanceSharedBases();

  /// The block that selected slot `slot`'s action (block-uniformly): slot.cu's
  /// advance function advances, derives and lists the slot, its
  /// arguments stored once in shared memory over the block's dead rows.
  void emitPolicyAdvance(Value slot);

  //===------------------------------------------------------------------===//
  // Row access: F consecutive features from column col0 = (lane % Q) * F
  // (RowAccess.cpp)
  //===------------------------------------------------------------------===//

  /// The sum of `v` over the Q threads of this thread's state row; every one
  /// of them gets the same value (the butterfly is symmetric).
  Value rowSum(Value v);

  /// This thread's F features of the f32 row at byte address `rowAddr`
  /// (width `width`; features past it read as 0). `shared` picks the
  /// address space; `invariant` marks read-only tables.
  SmallVector<Value> loadRow(Value rowAddr, int64_t width, bool shared,
                             bool invariant);

  /// The F features at byte address `addr` (this thread's first column of
  /// a row it knows to be in range), V-wide loads.
  SmallVector<Value> loadColumns(Value addr, bool shared, bool invariant);

  /// loadColumns of a read-only global row where `pred` (i1) holds, zeros
  /// elsewhere, by predicated loads (no branch); 16-byte loads only
  /// (tl.V == 4).
  SmallVector<Value> loadColumnsIf(Value pred, Value addr);

  /// `n` i32 words of a state row at byte address `addr` (8-byte aligned
  /// when n is even: state rows are 12 * A bytes apart), two per load where
  /// they can be; global memory (with L1::evict_first: a row is read by
  /// its tile alone), or (persistent) the derive's shared memory
  /// (stateSpace).
  SmallVector<Value> loadWords(Value addr, int64_t n);

  /// Writes this thread's F features to the workgroup row at `rowAddr`.
  void storeRow(Value rowAddr, ArrayRef<Value> values);

  //===------------------------------------------------------------------===//
  // The atom embedding (Embedding.cpp)
  //===------------------------------------------------------------------===//

  /// enc(item[t]) for this thread's F features of each of its T rows,
  /// flattened [T][F] (0 past the output width). Items past the list encode
  /// whatever their (in-bounds) derived row holds; nothing reads the result.
  /// With the tensor cores: the block's rows in use, embedded into the
  /// activation rows by all warps (every thread calls it: it ends with a
  /// block barrier); returns nothing, vectorLayersTensorCores() goes on. With
  /// an eval.fold_atom_layer table (atomLayer, N != 0 at run time) a row is its
  /// first linear before the bias instead: one table row per atom.
  SmallVector<Value> encode(Value slot, ArrayRef<Value> items, Value childBase);

  //===------------------------------------------------------------------===//
  // Vector layers by fma on the Q x F rows (FmaLayers.cpp)
  //===------------------------------------------------------------------===//

  /// The index of the first linear layer (layers before it run on the Q x F
  /// rows in the tensor-core kernel).
  size_t firstLinear() const;

  /// `layers` on the Q x F rows `curs` (any number of them).
  SmallVector<SmallVector<Value>>
  vectorLayers(ArrayRef<VectorLayer> layers, ArrayRef<LayerTables> tables,
               SmallVector<SmallVector<Value>> curs);

  /// y[j] = bias[j] + sum_i x[i] * Wt[i][j] for the T rows: the rows go
  /// through the warp's workgroup rows; each step reads V inputs of every
  /// row and V weight rows, for T * V * F fused multiply-adds.
  SmallVector<SmallVector<Value>> linear(const VectorLayer &layer,
                                         const LayerTables &tables,
                                         ArrayRef<SmallVector<Value>> curs);

  /// LayerNorm of one row of which this thread holds `x` (with `inWidth`,
  /// the values past the width read as 0): the row's sums by `rowReduce`,
  /// ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta, the host's order.
  SmallVector<Value> normalizeRow(ArrayRef<Value> x, ArrayRef<Value> inWidth,
                                  ArrayRef<Value> gamma, ArrayRef<Value> beta,
                                  const VectorLayer &layer,
                                  function_ref<Value(Value)> rowReduce);

  /// ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta over the width, for
  /// each of the T rows (the sums over the row's Q threads by butterfly).
  SmallVector<SmallVector<Value>> layerNorm(const VectorLayer &layer,
                                            const LayerTables &tables,
                                            ArrayRef<SmallVector<Value>> curs);

  //===------------------------------------------------------------------===//
  // Linear layers on the tensor cores (Tiling::tensorCores;
  // TensorCoreLayers.cpp)
  //
  // A warp's 16 rows are one m16 tile. After the first linear the values
  // live in the mma accumulator layout ("C layout"): lane l = 4g + t holds,
  // for n-tile nt, the columns 8nt + 2t + {0, 1} of the warp's rows g
  // (h = 0) and g + 8 (h = 1), flattened [h][nt][e]. A row's sums are over
  // its 4 lanes (a quad butterfly).
  //===------------------------------------------------------------------===//

  /// Index of (h, nt, e) in a C-layout vector of `width` columns.
  static int64_t cIndex(int64_t width, int64_t h, int64_t nt, int64_t e) {
    return (h * (width / 8) + nt) * 2 + e;
  }

  /// The logits of the C-layout encodings `enc`: enc(parent) (block row 0,
  /// the quad g = 0 of warp 0) through workgroup memory, then each row's dot
  /// as a quad sum, stored by the row's first lane.
  void emitLogitsC(Value slot, Value childBase, Value k, ArrayRef<Value> enc);

  /// The block row of this lane's C-layout row h.
  Value cRow(int64_t h);

  /// The address of column `col` (index) of block row `row` in the
  /// activation rows.
  Value actAddress(Value row, Value col);

  /// Two consecutive f32 at byte address `addr` (8-byte aligned).
  SmallVector<Value> loadPair(Value addr, bool shared, bool invariant);

  void storePair(Value addr, Value x, Value y);

  /// This lane's columns 8nt + 2t + {0, 1} of an f32 vector (a bias, a
  /// LayerNorm's gamma or beta, enc(parent)) at `base`: [nt][e].
  SmallVector<Value> loadCColumns(Value base, int64_t width, bool shared,
                                  bool invariant);

  /// The sum of `v` over the 4 lanes of this lane's quad (one row).
  Value quadSum(Value v);

  /// tf32(x), round to nearest with ties away (cvt.rna.tf32.f32): the TF32
  /// bits in an i32.
  Value toTf32(Value x);

  /// The vector layers from the first linear on, when the linears use the
  /// tensor cores: the rows are in the warp's activation rows (padded
  /// stride); every linear reads them from there, and its output stays in
  /// the C layout for the layers after it. Returns the C-layout encoding.
  SmallVector<Value> vectorLayersTensorCores();

  /// vectorLayersTensorCores on one path: `folded`, the activation rows
  /// encode() left hold the first linear before its bias (one table row per
  /// atom), so its output is the rows plus the bias; else the layers from the
  /// first linear.
  SmallVector<Value> vectorLayersTensorCores(bool folded);

  /// y = bias + x · Wᵀ for the warp's 16 rows (read from its activation
  /// rows) by mma.sync, x and W split into high and low parts (3xTF32:
  /// m16n8k8, TF32 parts; 3xF16: m16n8k16, f16 parts, half the k-steps),
  /// x_lo·W_hi + x_hi·W_lo + x_hi·W_hi accumulated in f32 (the dropped
  /// x_lo·W_lo is below f32 rounding). W comes split and in fragment order
  /// from eval.split_tf32_weight or eval.split_f16_weight: one 16-byte load
  /// per lane, n-tile and k-step.
  SmallVector<Value> linearTensorCores(const VectorLayer &layer,
                                       const LayerTables &tables);

  /// One f32 from workgroup memory.
  Value load1(Value addr);

  /// LayerNorm of both C-layout rows; the same formulas as layerNorm().
  SmallVector<Value> layerNormC(const VectorLayer &layer,
                                const LayerTables &tables, ArrayRef<Value> cv);

  //===------------------------------------------------------------------===//
  // Logits and selection (Selection.cpp)
  //===------------------------------------------------------------------===//

  /// The block's logits are in its slot's row: count the arrival; the last
  /// block of the slot selects.
  void emitArrival(Value slot, Value k, Value parts, Value tid);

  /// Whether the step form's "this block is the last" flag is in the rows'
  /// padding (the tensor-core rows, `width + 4` floats each) rather than
  /// its own workgroup word (emit()).
  bool lastFlagInPadding() const;

  /// The flag's address (a workgroup pointer): row 0's first padding word,
  /// or the third workgroup attribution.
  Value lastFlagPtr();

  /// atom.release.gpu.global.add.u32 at `address` (i64, global): the old
  /// value (i32). Inline PTX: LLVM 22's NVPTX back end emits an
  /// atomicrmw's release ordering as a relaxed atom.
  Value addRelease(Value address, Value value);

  /// The address of logit `child` of `slot` in the global logits rows.
  /// (The persistent kernel's block is its slot's only one: its logits row
  /// is in shared memory, after enc(parent).)
  Value logitAddress(Value slot, Value child);

  /// A logit another block may have written: volatile, so not from L1.
  Value loadLogit(Value slot, Value child);

  /// Spec §4 over logits[0..k) by warp 0 (lane = thread). Lane l reads
  /// logits l, l + 32, ... once, all loads in flight together (they come
  /// from L2: other blocks wrote them); the three passes then use registers.
  void emitSelect(Value slot, Value k);

  ScoreSelectOp op;
  const EncoderShape &shape;
  int64_t A, S, B;
  Tiling tl;
  /// slot.cu's advance-and-derive: the persistent form; null: one step.
  LLVM::LLVMFuncOp slotStep;
  /// slot.cu's advance function: the advancing form (a step form);
  /// null: the policy step alone.
  LLVM::LLVMFuncOp policyAdvance;
  /// The advancing form's arguments of policyAdvance, the kernel's last ones.
  SmallVector<Value> policyAdvanceArgs;
  /// The kernel takes an eval.fold_atom_layer table and its argument rows
  /// N (atomArgRows; 0 at run time: no table, the unfolded path).
  bool atomLayer;
  /// The step form takes the step policy grid's words and list and maps
  /// its blocks by them (kernel_abi.h's PolicyGridWord); without, block b
  /// is part b / B of slot b % B.
  bool gridWords;
  /// The persistent form takes the advance-engine's grid words and list
  /// (kernel_abi.h's EngineGridWord) and block i runs the list's i-th slot:
  /// the tail hand-off's kernel. Without, block b runs slot b.
  bool slotList;
  gpu::GPUFuncOp func;

  // Views, table addresses and per-thread values of the body.
  Value state, derived, count, action, actionLogp, arrivals, logitsBase;
  Value atomTables[5]; ///< pred_proj, arg0/arg1 const, arg0/arg1 var
  Value atomLayerTable, atomArgRows; ///< with atomLayer: base address, N
  SmallVector<LayerTables> layerTables;
  Value numR, scale;
  Value lane, warp, featureThread, col0, actBase, parentBase, logitsShared,
      slotArgsShared, scratchBase, flagShared;
  /// Where the state rows the encoding reads are (loadWords).
  Type stateSpace() const { return slotStep ? sharedPtr : globalPtr; }
  int64_t numSlotStepArgs = 0; ///< the persistent kernel's, 8 bytes each
  /// Items (parent and children) of the block's current pass.
  Value blockUsed;
  Value quadGroup, quadLane; ///< C layout: lane / 4 and lane % 4
  SmallVector<Value> rows;   ///< this thread's T rows within a pass
};

} // namespace mlir::eval::policy_kernel

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_KERNELGENERATOR_H
