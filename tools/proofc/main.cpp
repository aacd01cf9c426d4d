//===- main.cpp - The proofc driver ---------------------------------------===//
//
// proofc run | init-weights | weights-spec | compile | merge | train (the
// Python package's trainer, TrainCommand.cpp). Every failure
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
#include "support/MessageText.h"
#include "tooling/StderrNotices.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <string_view>
#include <utility>

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
  // Listed in --help; its options are the Python trainer's, which parses
  // them itself: `proofc train ...` is handed over before CLI11 parses.
  app.add_subcommand("train", "Train PROGRAM's policy on a dataset "
                              "(REINFORCE, rollouts from proofc, the learner "
                              "in PyTorch; see proofc train --help)");
  if (argc > 1 && std::string_view(argv[1]) == "train")
    return proofc::cli::runReportingErrors(
        "proofc", [&]() -> int { trainCommand(argc - 2, argv + 2); });

  // `proofc frobnicate`: name the word, and the commands there are (CLI11
  // would only say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App *command : std::as_const(app).get_subcommands(
             [](const CLI::App *) { return true; })) {
      names += (names.empty() ? "" : ", ") + command->get_name();
      known = known || command->get_name() == argv[1];
    }
    if (!known) {
      fmt::print(stderr,
                 "proofc: error: {}: not a proofc command (the commands are "
                 "{}; see proofc --help)\n",
                 proofc::escapeForMessage(argv[1]), names);
      return 1;
    }
  }
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
