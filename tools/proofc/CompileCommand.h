//===- CompileCommand.h - proofc compile ------------------------*- C++ -*-===//
#ifndef PROOFC_TOOLS_PROOFC_COMPILECOMMAND_H
#define PROOFC_TOOLS_PROOFC_COMPILECOMMAND_H

#include "BundleCompiler.h"

#include <string>

namespace CLI {
class App;
} // namespace CLI

namespace proofc::driver {

struct CompileOptions {
  std::string program;
  std::string output;
  std::string emit = "bundle"; ///< bundle | ptx | mlir
  BundleCompilerOptions compiler;
};

/// Adds `proofc compile` to `app`; the options land in `options`.
CLI::App *addCompileCommand(CLI::App &app, CompileOptions &options);
/// Runs it; returns the exit code.
int compileCommand(const CompileOptions &options);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_COMPILECOMMAND_H
