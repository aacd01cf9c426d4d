//===- ExportProgramSpec.h - eval.program to ProgramSpec --------*- C++ -*-===//
//
// The host backend (and the GPU plan) read a program as a ProgramSpec: the
// shape parameters and the policy encoder as a flat op list. The export
// accepts exactly the programs the runtime implements and reports anything
// else as an error diagnostic on the offending op.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TARGET_EXPORTPROGRAMSPEC_H
#define PROOFC_TARGET_EXPORTPROGRAMSPEC_H

#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/contract/Program.h"

#include "mlir/Support/LLVM.h"

namespace mlir::eval {

/// Exports a verified program. Fails (after emitting a diagnostic) when the
/// proof loop is not wired as spec §5 runs it, when parent and child states
/// use different encoders, or when the encoder is not a single chain of ops.
FailureOr<proofc::ProgramSpec> exportProgramSpec(ProgramOp program);

} // namespace mlir::eval

#endif // PROOFC_TARGET_EXPORTPROGRAMSPEC_H
