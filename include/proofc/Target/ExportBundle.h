//===- ExportBundle.h - A lowered module -> proofc::Bundle ------*- C++ -*-===//
//
// The last step of `proofc compile`: the module after buildEvalGpuPipeline
// (launches, buffers, prologue ops, eval.cuda_module declarations and a
// gpu.binary with the PTX) becomes the runtime's Bundle, op for field.
// The runtime serializes and verifies it (serializeBundle/parseBundle).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TARGET_EXPORTBUNDLE_H
#define PROOFC_TARGET_EXPORTBUNDLE_H

#include "proofc/contract/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::eval {

/// The CUDA C++ template `file` of lib/Targets/CUDA/Kernels (e.g.
/// "engine.cu") as embedded at build time, or nullopt.
std::optional<StringRef> getEmbeddedKernelSource(StringRef file);

/// Exports the lowered module holding one eval.program. `program` is the
/// ProgramSpec exported from the same program before lowering (the host
/// backend's view, carried in the bundle). Fails with a diagnostic on the op
/// that does not map to the bundle. proofcVersion and source are left for
/// the caller.
FailureOr<proofc::Bundle> exportBundle(ModuleOp module,
                                       const proofc::ProgramSpec &program);

/// The PTX of the module's gpu.binary (one NVVM object in assembly form).
FailureOr<std::string> exportPtx(ModuleOp module);

} // namespace mlir::eval

#endif // PROOFC_TARGET_EXPORTBUNDLE_H
