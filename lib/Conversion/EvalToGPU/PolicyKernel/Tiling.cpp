//===- Tiling.cpp - how a policy-kernel block holds its rows --------------===//
//
// chooseTiling (the widest layer sets F and Q; V = 4 where every width is a
// multiple of 4), persistentLayout (the byte offsets of the persistent
// kernel's dynamic shared memory, after the derive's scratch) and
// policyAdvanceLayout (the advancing form's, the scratch over the rows).
//
//===----------------------------------------------------------------------===//
#include "Tiling.h"

#include "PolicyKernel.h"
#include "proofc/contract/kernel_abi.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

Tiling mlir::eval::policy_kernel::chooseTiling(const EncoderShape &shape,
                                               int64_t warps, int64_t T) {
  bool quads = shape.atomWidth % 4 == 0;
  for (const VectorLayer &layer : shape.layers)
    quads &= layer.in % 4 == 0 && layer.out % 4 == 0;
  Tiling t;
  t.V = quads ? 4 : 1;
  int64_t perThread = (shape.maxWidth + kWarp - 1) / kWarp; // so that Q <= 32
  t.F = std::max(t.V, (perThread + t.V - 1) / t.V * t.V);
  t.Q = static_cast<int64_t>(
      llvm::PowerOf2Ceil((shape.maxWidth + t.F - 1) / t.F));
  t.R = kWarp / t.Q;
  t.T = T;
  t.warps = warps;
  return t;
}

PersistentLayout mlir::eval::policy_kernel::persistentLayout(const Tiling &tl,
                                                             int64_t A,
                                                             int64_t S,
                                                             int64_t numArgs) {
  PersistentLayout l;
  l.rows = static_cast<int64_t>(
      llvm::alignTo(deriveScratchBytes(A, S, tl.threads()), 16));
  l.parent = l.rows + 4 * tl.rowsPerPass() * tl.actStride();
  l.logits = l.parent + 4 * tl.width();
  // slot.cu's rollout step finds the logits this many bytes before the
  // argument words (kernel_abi.h).
  l.args =
      l.logits + proofc_abi::slotLogitsBytesBeforeArgs(static_cast<int>(S));
  l.total = l.args + 8 * numArgs;
  return l;
}

PolicyAdvanceLayout
mlir::eval::policy_kernel::policyAdvanceLayout(const Tiling &tl, int64_t A,
                                               int64_t S, int64_t numArgs) {
  PolicyAdvanceLayout l;
  l.parent = 4 * tl.rowsPerPass() * tl.actStride();
  l.flag = l.parent + 4 * tl.width();
  const int64_t rowsEnd = l.flag + 4;
  l.args = static_cast<int64_t>(llvm::alignTo(
      deriveScratchBytes(A, S, tl.threads(), /*keptInScratch=*/false), 16));
  l.total = static_cast<int64_t>(
      llvm::alignTo(std::max(rowsEnd, l.args + 8 * numArgs), 16));
  return l;
}
