//===- PrologueSchedule.h - The plan prologue, checked and scheduled -*- C++
//-*-===//
//
// Internal to the runtime. GpuPlan::prologue (Bundle.h PrologueOp) has two
// executors: the host (PlanBinding.cpp's runPlanPrologue, over host tensors)
// and the device (DevicePrologue, over weights already on the GPU). Both
// start here, so they check the same things with the same messages:
//  - resolvePrologue: each op against the shapes of its inputs, in order,
//    giving every dst its shape (errors name the bundle path, the op index,
//    the op and the tensor);
//  - schedulePrologue: the device's steps -- which kernel writes where, which
//    tensor is a scratch intermediate, which is copied device to device --
//    as plain data with no driver, so the CPU emulation test runs exactly the
//    steps DevicePrologue launches.
// The element math of the ops is kernels/prologue_ops.h.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_PROLOGUESCHEDULE_H
#define PROOFC_RUNTIME_CUDA_PROLOGUESCHEDULE_H

#include "bundle/Bundle.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace proofc {

using ShapeMap = std::map<std::string, std::vector<int64_t>>;

enum class PrologueKind {
  FoldColumns,
  Copy,
  Transpose,
  Tf32Fragments,
  F16Fragments,
  FoldAtomLayer
};

/// One op of GpuPlan::prologue, checked against its inputs' shapes.
struct ResolvedPrologueOp {
  const PrologueOp *op = nullptr;
  size_t index = 0;
  /// "<bundle>: plan.prologue[<index>] (<op> -> <dst>)", the errors' prefix.
  std::string what;
  PrologueKind kind = PrologueKind::Copy;
  std::vector<int64_t> dstShape;
  int64_t dstElements = 0;
  /// FoldColumns: table [rows, cols], weight [out, in] read from column
  /// colBegin, bias [out] when `bias`. Transpose, Tf32Fragments,
  /// F16Fragments: the source is [rows, cols]. FoldAtomLayer: table (pred_proj)
  /// [rows, cols], the const args [consts, cols], the var args [vars, cols],
  /// weight [out, in = cols], argRows = atomLayerArgRows (kernel_abi.h);
  /// dstShape [atomLayerRows, out].
  int64_t rows = 0, cols = 0, out = 0, in = 0, colBegin = 0;
  int64_t consts = 0, vars = 0, argRows = 0;
  bool bias = false;
};

/// Checks plan.prologue in order against `shapes` (the weights' shapes),
/// adding every op's dst to it. Errors (proofc::Error): a missing tensor, a
/// wrong shape, a dst that already names a tensor, an unknown op.
std::vector<ResolvedPrologueOp> resolvePrologue(const GpuPlan &plan,
                                                ShapeMap &shapes,
                                                const std::string &bundlePath);

/// The shape of every tensor for weights of shapes `weightShapes`: the
/// weights and each op's dst (resolvePrologue's checks and errors). For
/// sizing and checking the plan's "weights:<name>" buffers without the data.
ShapeMap prologueShapes(const GpuPlan &plan, ShapeMap weightShapes,
                        const std::string &bundlePath);

/// The product of `shape`'s sizes.
int64_t elementCount(const std::vector<int64_t> &shape);

/// An operand of a device step: an absolute device address (a weight or an
/// output buffer) or a byte offset into the executor's scratch.
struct StepAddress {
  bool scratch = false;
  uint64_t value = 0;
  bool operator==(const StepAddress &o) const {
    return scratch == o.scratch && value == o.value;
  }
};

/// One device step of the prologue: a kernel of kernels/prologue.cu, or a
/// device-to-device copy of `elements` floats from `src` to `dst`.
struct PrologueStep {
  enum class Kind {
    FoldColumns,
    Transpose,
    Tf32Fragments,
    F16Fragments,
    FoldAtomLayer,
    Copy
  };
  Kind kind = Kind::Copy;
  std::string tensor; ///< the tensor written (an op's dst or a weight)
  /// The op's errors prefix (ResolvedPrologueOp::what), or for an output
  /// copied from a weight "<bundle>: output '<name>'".
  std::string what;
  StepAddress dst, src, weight, bias; ///< FoldColumns: src = the table
  bool hasBias = false;
  /// FoldAtomLayer: src = pred_proj, args = PrologueOp::args' tables.
  StepAddress args[4];
  bool relu = false;
  int64_t elements = 0; ///< floats written
  /// FoldColumns, FoldAtomLayer: as ResolvedPrologueOp; Transpose,
  /// Tf32Fragments, F16Fragments: src is [rows, cols].
  int64_t rows = 0, cols = 0, out = 0, in = 0, colBegin = 0;
  int64_t consts = 0, vars = 0, argRows = 0;
  uint32_t grid = 0, block = 0; ///< kernels: the launch (grid-stride loops)
};

struct PrologueSchedule {
  std::vector<PrologueStep> steps;
  uint64_t scratchBytes = 0; ///< intermediates, each 256-byte aligned
  ShapeMap shapes;           ///< every weight and every op's dst
};

/// A float32 row-major tensor on the device.
struct AddressedTensor {
  uint64_t address = 0;
  std::vector<int64_t> shape;
};

/// The device steps that run plan.prologue over `weights` and leave every
/// tensor named in `outputs` (name -> address of a buffer with room for it)
/// there: an op whose dst is an output writes it in place, any other op's
/// dst goes to scratch (a plain copy's dst is its source, not copied unless
/// it is an output), and an output naming a weight is copied from it.
/// Errors: resolvePrologue's; a negative size; a null address (but for a
/// weight with no elements); an output that names neither a weight nor a
/// dst.
PrologueSchedule
schedulePrologue(const GpuPlan &plan,
                 const std::map<std::string, AddressedTensor> &weights,
                 const std::map<std::string, uint64_t> &outputs,
                 const std::string &bundlePath);

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_PROLOGUESCHEDULE_H
