//===- ValueBuffers.h - The buffers each eval value occupies ----*- C++ -*-===//
//
// Shared by eval-plan-buffers (which declares and assigns buffers) and
// eval-lower-to-gpu (which passes them to kernels). A value of an eval type
// occupies several buffers, its components, in a fixed order (the kernels'
// argument order); e.g. !eval.slots<BxA> is (state, slot_cand, depth, logp).
// The plan records them as attributes:
//   eval.buffers      on an op: per result, the array of its buffers;
//   eval.arg_buffers  on eval.device_loop: per block argument;
//   eval.weight_buffers on eval.score_select: weight name -> buffer.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_TRANSFORMS_VALUEBUFFERS_H
#define PROOFC_DIALECT_EVAL_TRANSFORMS_VALUEBUFFERS_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::eval {

inline constexpr StringLiteral kBuffersAttr = "eval.buffers";
inline constexpr StringLiteral kArgBuffersAttr = "eval.arg_buffers";
inline constexpr StringLiteral kWeightBuffersAttr = "eval.weight_buffers";

/// One buffer a value of some type occupies.
struct BufferComponent {
  std::string role; ///< the buffer's name when it is the first of its role
  Type dtype;       ///< i32 or f32
  SmallVector<std::string, 4> elements; ///< symbolic extent
  std::string init; ///< run-time binding ("kb.facts", ...) or "" (zeroed)
};

/// The components of a value of `type`. `tensorRole` names the buffer of a
/// rank-1 tensor (an action or its logp); i1 is a device flag. Fails for a
/// type with no buffer form.
FailureOr<SmallVector<BufferComponent>>
getBufferComponents(Type type, StringRef tensorRole = "");

/// The buffers the plan gave `value`, in component order; failure (with a
/// diagnostic on `user`) when the value has none.
FailureOr<SmallVector<BufferOp>> getValueBuffers(Value value, Operation *user);

/// The buffer of weight `name` read by `op` (eval.weight_buffers).
FailureOr<BufferOp> getWeightBuffer(ScoreSelectOp op, StringRef name);

/// Buffer names are C-like: other characters become '_'.
std::string sanitizeBufferName(StringRef name);

} // namespace mlir::eval

#endif // PROOFC_DIALECT_EVAL_TRANSFORMS_VALUEBUFFERS_H
