//===- main.cpp - The proofc driver ---------------------------------------===//
//
// proofc run | init-weights | weights-spec | compile | merge. Every failure
// ends as one line on stderr and exit code 1: MLIR diagnostics as
// `file:line:col: error: ...` (printed by the program loader), everything else
// as `proofc: error: <message>`. An interrupted run ends as `proofc:
// interrupted by SIGINT` and exit code 128 + the signal (130, or 143 for
// SIGTERM).
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "CompileCommand.h"
#include "DriverOptions.h"

#include "outputs/Provenance.h"
#include "proofc/runtime/Notices.h"
#include "support/Fail.h"
#include "tooling/StderrNotices.h"

#include <CLI/CLI.hpp>

using namespace proofc::driver;

int main(int argc, char **argv) {
  // The runtime never prints: its notices go to stderr here.
  proofc::setNoticeHandler(proofc::printNoticeToStderr);
  CLI::App app{"proofc: compile and evaluate eval programs (policy-guided "
               "provers for knowledge-graph link prediction)"};
  app.set_version_flag("--version",
                       std::string("proofc ") + proofc::proofcVersion());
  app.require_subcommand(1);

  RunOptions runOptions;
  InitWeightsOptions initOptions;
  CLI::App *run = addRunCommand(app, runOptions);
  CLI::App *init = addInitWeightsCommand(app, initOptions);
  WeightsSpecOptions specOptions;
  CLI::App *spec = addWeightsSpecCommand(app, specOptions);
  CompileOptions compileOptions;
  CLI::App *compile = addCompileCommand(app, compileOptions);
  proofc::MergeOptions mergeOptions;
  CLI::App *merge = addMergeCommand(app, mergeOptions);

  if (std::optional<int> exitCode =
          proofc::cli::parseCommandLine(app, argc, argv, "proofc"))
    return *exitCode;
  return proofc::cli::runReportingErrors("proofc", [&] {
    if (run->parsed())
      return runCommand(runOptions);
    if (init->parsed())
      return initWeightsCommand(initOptions);
    if (spec->parsed())
      return weightsSpecCommand(specOptions);
    if (compile->parsed())
      return compileCommand(compileOptions);
    if (merge->parsed())
      return mergeCommand(mergeOptions);
    proofc::fail("no subcommand given");
  });
}
