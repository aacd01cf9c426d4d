//===- main.cpp - The proofc driver ---------------------------------------===//
//
// proofc run | init-weights | compile. Every failure ends as one line on
// stderr and exit code 1: MLIR diagnostics as `file:line:col: error: ...`
// (printed by the program loader), everything else as `proofc: error:
// <message>`. An interrupted run ends as `proofc: interrupted by SIGINT` and
// exit code 128 + the signal (130, or 143 for SIGTERM).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "CompileCommand.h"
#include "DriverOptions.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/RunControl.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>

using namespace proofc::driver;

static int printError(const std::string &message) {
  fmt::print(stderr, "proofc: error: {}\n", message);
  return 1;
}

int main(int argc, char **argv) {
  CLI::App app{"proofc: compile and evaluate eval programs (policy-guided "
               "provers for knowledge-graph link prediction)"};
  app.set_version_flag("--version", std::string("proofc ") + PROOFC_VERSION);
  app.require_subcommand(1);

  RunOptions runOptions;
  InitWeightsOptions initOptions;
  CLI::App *run = addRunCommand(app, runOptions);
  CLI::App *init = addInitWeightsCommand(app, initOptions);
  CompileOptions compileOptions;
  CLI::App *compile = addCompileCommand(app, compileOptions);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return printError(e.what());
  }

  try {
    if (run->parsed())
      return runCommand(runOptions);
    if (init->parsed())
      return initWeightsCommand(initOptions);
    if (compile->parsed())
      return compileCommand(compileOptions);
    return printError("no subcommand given");
  } catch (const proofc::Interrupted &e) {
    // Ctrl-C / SIGTERM: say so and exit 128 + the signal, like a shell.
    fmt::print(stderr, "proofc: {}\n", e.what());
    return e.exitCode();
  } catch (const proofc::Error &e) {
    return printError(e.what());
  } catch (const std::exception &e) {
    return printError(fmt::format("internal error: {}", e.what()));
  }
}
