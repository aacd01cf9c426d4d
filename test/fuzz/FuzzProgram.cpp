//===- FuzzProgram.cpp - libFuzzer target for the program front end -------===//
//
// The input is an .mlir file as `proofc` reads it: parsed with the eval
// dialect loaded (which verifies it), then every eval.program exported to a
// ProgramSpec. Errors must only ever be diagnostics; an exported spec must
// have the positive shapes and the non-empty encoder the runtime relies on.
// Each input gets a fresh MLIRContext, so nothing carries over between runs.
// Like the driver, it refuses input nested deeper than kMaxSourceNesting
// before parsing (MLIR's recursive parser would exhaust the stack); the
// corpus holds inputs just below and just above the limit.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Support/SourceNesting.h"
#include "proofc/Target/ExportProgramSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

// MLIR comes prebuilt without ASan, but its headers' BumpPtrAllocator
// instantiated here poisons slabs that the uninstrumented library code then
// fills without unpoisoning: a false use-after-poison. Manual poisoning is
// off; every real heap error is still reported.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (proofc::findExcessNesting(text))
    return 0; // refused with one error, as the driver and proofc-opt do

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.getOrLoadDialect<mlir::eval::EvalDialect>();
  // Diagnostics are the expected outcome of a bad program: drop them.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;

  for (mlir::eval::ProgramOp program :
       module->getOps<mlir::eval::ProgramOp>()) {
    mlir::FailureOr<proofc::ProgramSpec> spec =
        mlir::eval::exportProgramSpec(program);
    if (mlir::failed(spec))
      continue;
    const proofc::ShapeParams &s = spec->shape;
    FUZZ_CHECK(s.A > 0 && s.S > 0 && s.D > 0 && s.B > 0 && s.d > 0 && s.L >= 0,
               "exported shape A=%d S=%d D=%d B=%d d=%d L=%d", s.A, s.S, s.D,
               s.B, s.d, s.L);
    FUZZ_CHECK(!spec->policy.encoder.empty(), "exported an empty encoder");
  }
  return 0;
}
