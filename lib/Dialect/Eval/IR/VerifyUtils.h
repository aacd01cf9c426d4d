//===- VerifyUtils.h - Helpers shared by the eval op verifiers --*- C++ -*-===//
#ifndef PROOFC_LIB_DIALECT_EVAL_IR_VERIFYUTILS_H
#define PROOFC_LIB_DIALECT_EVAL_IR_VERIFYUTILS_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include <optional>

namespace mlir::eval::verifyutil {

/// The shape parameters of spec §1.2 as the program declares them.
struct ProgramShape {
  int64_t A = 0, S = 0, D = 0, B = 0;
};

/// The parameters of `program`, or nullopt when one is missing or not
/// positive (ProgramOp::verify reports that, so callers just skip).
std::optional<ProgramShape> getProgramShape(ProgramOp program);
/// Likewise for the program enclosing `op`.
std::optional<ProgramShape> getEnclosingProgramShape(Operation *op);

/// The tensor type when `type` is a static ranked tensor of `rank` positive
/// sizes, else null.
RankedTensorType getStaticTensor(Type type, int64_t rank);
/// Likewise for a tensor of the proof loop, whose leading size (B) may be
/// `?` until eval-specialize-shapes writes the program's B.
RankedTensorType getSlotTensor(Type type, int64_t rank);

/// Fails with "'<op>' op attribute '<name>' must name a weight tensor" when a
/// weight-name attribute is empty.
LogicalResult verifyWeightName(Operation *op, StringRef attrName,
                               StringAttr value);

/// eval.select's and eval.score_select's `modes` (docs/sampling.md): when
/// present, a non-empty list of distinct "greedy" / "sampled" that holds
/// "greedy" (evaluation always selects greedily).
LogicalResult verifySelectModes(Operation *op, ArrayAttr modes);

/// Whether `modes` (null: both) lists "sampled".
bool selectModesIncludeSampled(ArrayAttr modes);

} // namespace mlir::eval::verifyutil

#endif // PROOFC_LIB_DIALECT_EVAL_IR_VERIFYUTILS_H
