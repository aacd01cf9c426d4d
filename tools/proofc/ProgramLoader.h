//===- ProgramLoader.h - Parse, verify, export a program --------*- C++ -*-===//
//
// The only part of the driver that touches MLIR. Diagnostics are printed to
// stderr, one line each: `file:line:col: error: message`.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_PROGRAMLOADER_H
#define PROOFC_TOOLS_PROOFC_PROGRAMLOADER_H

#include "proofc/contract/Program.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
} // namespace llvm
namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace proofc::driver {

/// The bytes of the program file `path`, named `path` for diagnostics, read
/// by the runtime's readFile (its size limit and its errors).
std::unique_ptr<llvm::MemoryBuffer> readProgramFile(const std::string &path);

/// Parses the program `file` in `context`, whose diagnostic handler prints
/// what fails: first refuses a file nested deeper than kMaxSourceNesting
/// brackets (`file:line:col: error: nesting deeper than 256 levels`), which
/// would exhaust the stack of MLIR's recursive parser. Null once an error was
/// reported.
mlir::OwningOpRef<mlir::ModuleOp>
parseProgram(std::unique_ptr<llvm::MemoryBuffer> file,
             mlir::MLIRContext &context);

/// Parses `path` (one eval.program), verifies it and exports its
/// ProgramSpec. Returns nullopt once the diagnostics are printed; throws
/// proofc::Error when the file cannot be read.
std::optional<ProgramSpec> loadProgramSpec(const std::string &path);

/// The ProgramSpec of `path`: a path ending in ".pcb" is read as a bundle
/// written by `proofc compile` (readBundle: its errors are proofc::Error),
/// any other as an eval program (loadProgramSpec above).
std::optional<ProgramSpec> loadProgramOrBundle(const std::string &path);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_PROGRAMLOADER_H
