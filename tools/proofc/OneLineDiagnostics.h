//===- OneLineDiagnostics.h - One line per failed program -------*- C++ -*-===//
//
// Prints a failed program as exactly ONE `file:line:col: error: message`
// line, without the source excerpt, so tools and tests see one line per
// problem (docs/errors.md):
//
// - Only the first error is printed: MLIR goes on after some errors (the
//   verifier reports an op, then its parent op fails too; a pass reports an
//   op and then the pass) and the later ones restate the first. Notes are
//   folded into their error's line (`...; note: ...`), never printed apart.
// - The line is built here, not by SourceMgrDiagnosticHandler: the file name,
//   `loc("...")` names and the quoted program text inside a message are
//   untrusted bytes. Each part goes through escapeForMessage (control bytes
//   as `\xNN`, so no forged second line and no raw ESC) and is cut at a
//   fixed size, so a 20,000-deep location cannot make a 340 KB line.
//
// Shared by every driver path that parses a program.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_ONELINEDIAGNOSTICS_H
#define PROOFC_TOOLS_PROOFC_ONELINEDIAGNOSTICS_H

#include "support/MessageText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace proofc::driver {

/// Bytes of a diagnostic's location (file name, or the printed location when
/// it names no file) kept before the rest is elided.
inline constexpr size_t kDiagnosticLocationBytes = 512;
/// Bytes of a diagnostic's message (notes folded in) kept likewise.
inline constexpr size_t kDiagnosticMessageBytes = 1024;

/// `loc` as the `file:line:col` prefix of a diagnostic line ("" for an
/// unknown location), escaped and bounded.
inline std::string formatDiagnosticLocation(mlir::Location loc) {
  if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
    return escapeForMessage(file.getFilename().strref(),
                            kDiagnosticLocationBytes) +
           ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  if (llvm::isa<mlir::UnknownLoc>(loc))
    return "";
  // `loc("name")`: its bytes, escaped once (MLIR's printer escapes them too,
  // and escaping its output would double every backslash).
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return "loc(\"" +
           escapeForMessage(name.getName().strref(), kDiagnosticLocationBytes) +
           "\")";
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << loc;
  return escapeForMessage(os.str(), kDiagnosticLocationBytes);
}

/// The one line printed for `diag` (without its newline).
inline std::string formatDiagnosticLine(mlir::Diagnostic &diag) {
  std::string message = llvm::StringRef(diag.str()).rtrim().str();
  auto file = diag.getLocation()->findInstanceOf<mlir::FileLineColLoc>();
  for (mlir::Diagnostic &note : diag.getNotes()) {
    if (message.size() > kDiagnosticMessageBytes)
      break;
    message += "; note: " + llvm::StringRef(note.str()).rtrim().str();
    // Where the note points, when that is not where the error is.
    auto at = note.getLocation()->findInstanceOf<mlir::FileLineColLoc>();
    if (at && at != file)
      message += " (at " +
                 (file && at.getFilename() == file.getFilename()
                      ? std::to_string(at.getLine()) + ":" +
                            std::to_string(at.getColumn())
                      : formatDiagnosticLocation(at)) +
                 ")";
  }
  const char *severity = "error";
  switch (diag.getSeverity()) {
  case mlir::DiagnosticSeverity::Error:
    break;
  case mlir::DiagnosticSeverity::Warning:
    severity = "warning";
    break;
  case mlir::DiagnosticSeverity::Note:
    severity = "note";
    break;
  case mlir::DiagnosticSeverity::Remark:
    severity = "remark";
    break;
  }
  std::string where = formatDiagnosticLocation(diag.getLocation());
  return (where.empty() ? "" : where + ": ") + severity + ": " +
         escapeForMessage(message, kDiagnosticMessageBytes);
}

/// Prints the first error (and any warning or remark before it) of
/// `context` to stderr, one line each, and swallows every later error.
class OneLineDiagnostics {
public:
  explicit OneLineDiagnostics(mlir::MLIRContext *context)
      : handler(context, [this](mlir::Diagnostic &diag) {
          if (printedError)
            return mlir::success(); // it restates, or follows, the first
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            printedError = true;
          llvm::errs() << formatDiagnosticLine(diag) << "\n";
          return mlir::success();
        }) {}

  /// Whether an error was printed (and every later one swallowed).
  bool hasPrintedError() const { return printedError; }

private:
  bool printedError = false;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_ONELINEDIAGNOSTICS_H
