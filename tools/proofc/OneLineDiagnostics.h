//===- OneLineDiagnostics.h - One stderr line per MLIR diagnostic -*- C++ -*-===//
//
// Prints each diagnostic (and each of its notes) as a single
// `file:line:col: severity: message` line, without the source excerpt, so
// tools and tests see one line per problem. Shared by every driver path that
// parses a program.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_ONELINEDIAGNOSTICS_H
#define PROOFC_TOOLS_PROOFC_ONELINEDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace proofc::driver {

class OneLineDiagnostics : public mlir::SourceMgrDiagnosticHandler {
public:
  OneLineDiagnostics(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context)
      : SourceMgrDiagnosticHandler(sourceMgr, context, llvm::errs()) {
    setHandler([this](mlir::Diagnostic &diag) {
      emitDiagnostic(diag.getLocation(), diag.str(), diag.getSeverity(),
                     /*displaySourceLine=*/false);
      for (mlir::Diagnostic &note : diag.getNotes())
        emitDiagnostic(note.getLocation(), note.str(), note.getSeverity(),
                       /*displaySourceLine=*/false);
      return mlir::success();
    });
  }
};

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_ONELINEDIAGNOSTICS_H
