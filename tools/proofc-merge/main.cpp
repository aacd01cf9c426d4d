//===- main.cpp - proofc-merge: combine the parts of a sharded run --------===//
//
// proofc-merge PART... [--report R] [--outcomes O] [--data DIR]
//
// The runtime-only counterpart of `proofc merge` (no MLIR, like proofc-run),
// for the machines that ran the shards. The parts written by `--shard i/n
// --part FILE` become the report and the outcomes one process would have
// written (docs/scale-out.md). Every failure ends as one line on stderr
// (`proofc-merge: error: ...`) and exit code 1.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "MergeFlags.h"

#include "outputs/Provenance.h"
#include "proofc/runtime/Notices.h"
#include "tooling/Merge.h"
#include "tooling/StderrNotices.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  proofc::setNoticeHandler(proofc::printNoticeToStderr);
  CLI::App app{"proofc-merge: combine the parts of a sharded proofc run "
               "(--shard i/n --part FILE) into its report and outcomes"};
  app.set_version_flag("--version",
                       std::string("proofc-merge ") + proofc::proofcVersion());
  proofc::MergeOptions options;
  proofc::cli::addMergeFlags(app, options);
  if (std::optional<int> exitCode =
          proofc::cli::parseCommandLine(app, argc, argv, "proofc-merge"))
    return *exitCode;
  return proofc::cli::runReportingErrors("proofc-merge", [&] {
    proofc::mergeParts(options, options.report == "-" ||
                                        options.outcomes == "-" ||
                                        options.proofs == "-"
                                    ? stderr
                                    : stdout);
    return 0;
  });
}
