//===- ProgramLoader.cpp - Parse, verify and export an eval program -------===//
//
// Or read the program of a bundle (.pcb), for the commands that need only
// the ProgramSpec (init-weights, weights-spec).
//
//===----------------------------------------------------------------------===//
#include "ProgramLoader.h"

#include "OneLineDiagnostics.h"

#include "bundle/Bundle.h"
#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Support/SourceNesting.h"
#include "proofc/Target/ExportProgramSpec.h"
#include "proofc/runtime/Error.h"
#include "support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace proofc;

std::unique_ptr<llvm::MemoryBuffer>
proofc::driver::readProgramFile(const std::string &path) {
  return llvm::MemoryBuffer::getMemBufferCopy(readFile(path), path);
}

mlir::OwningOpRef<mlir::ModuleOp>
proofc::driver::parseProgram(std::unique_ptr<llvm::MemoryBuffer> file,
                             mlir::MLIRContext &context) {
  if (std::optional<NestingExcess> deep =
          findExcessNesting(file->getBuffer(), kMaxSourceNesting)) {
    mlir::emitError(mlir::FileLineColLoc::get(
        &context, file->getBufferIdentifier(), deep->line, deep->column))
        << excessNestingMessage();
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
}

std::optional<ProgramSpec>
proofc::driver::loadProgramSpec(const std::string &path) {
  std::unique_ptr<llvm::MemoryBuffer> file = readProgramFile(path);

  mlir::MLIRContext context;
  context.disableMultithreading();    // one small program: no thread pool
  context.printOpOnDiagnostic(false); // the location says where
  context.getOrLoadDialect<mlir::eval::EvalDialect>();
  driver::OneLineDiagnostics handler(&context);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseProgram(std::move(file), context);
  if (!module)
    return std::nullopt; // parse or verifier errors were printed

  auto programs = llvm::to_vector(module->getOps<mlir::eval::ProgramOp>());
  if (programs.empty()) {
    mlir::emitError(mlir::FileLineColLoc::get(&context, path, 1, 1))
        << "expected one 'eval.program', found none";
    return std::nullopt;
  }
  if (programs.size() > 1) {
    mlir::emitError(programs[1].getLoc())
        << "a second 'eval.program'; a file holds exactly one";
    return std::nullopt;
  }
  mlir::FailureOr<ProgramSpec> spec =
      mlir::eval::exportProgramSpec(programs.front());
  if (mlir::failed(spec))
    return std::nullopt;
  return std::move(*spec);
}

std::optional<ProgramSpec>
proofc::driver::loadProgramOrBundle(const std::string &path) {
  const std::string suffix = ".pcb";
  if (path.size() >= suffix.size() &&
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return readBundle(path).program;
  return loadProgramSpec(path);
}
