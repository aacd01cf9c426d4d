//===- main.cpp - proofc-run: evaluate a compiled bundle ------------------===//
//
// proofc-run PROGRAM.pcb --data DIR --weights W [--split --corruptions --seed
// --queries --facts --device cpu|cuda|auto --devices all|N,... --threads
// --cond native|emulated|host --unroll --memo-entries --max-pool --quiet
// --report --outcomes --proofs --proofs-format --proofs-of ...]
//
// The runtime-only counterpart of `proofc run`: the program comes from a
// bundle written by `proofc compile`, so no MLIR is needed. The run flags
// (tools/common/RunFlags.h), the run flow (RunTool.h: one process or MPI
// ranks under mpirun/srun), summary and report are those of `proofc run`
// (docs/options.md lists every flag and its default). The run
// itself is the runtime's RunSession. Every failure ends as one line on
// stderr (`proofc-run: error: ...`) and exit code 1; an interrupted run as
// `proofc-run: interrupted by SIGINT` and exit code 128 + the signal (130,
// or 143 for SIGTERM).
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "RunFlags.h"
#include "RunTool.h"

#include "bundle/Bundle.h"
#include "outputs/Provenance.h"
#include "proofc/runtime/Notices.h"
#include "session/Devices.h"
#include "support/Fail.h"
#include "support/Timing.h"
#include "tooling/RunSession.h"
#include "tooling/StderrNotices.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <thread>

using namespace proofc;

namespace {

struct Options {
  std::string bundle;
  cli::RunFlags run;
};

int run(const Options &o) {
  const Clock::time_point start = Clock::now();
  // What the session runs on, kept alive by the steps below.
  std::optional<Bundle> bundle;
  OpenedBackends opened;
  cli::RunTool tool;
  tool.name = "proofc-run";
  tool.open = [&](const RunSessionOptions &so) {
    checkOutputPaths(so, {{o.bundle, "bundle", ""}}); // before anything slow
    bundle = readBundle(o.bundle);
    tool.programSeconds = secondsSince(start);
    // The device first, so that an unavailable one fails before any loading.
    SessionOptions device = so;
    if (!so.devices.empty())
      device.device = "cuda";
    opened = openBackends(*bundle, o.bundle, device, "--device", "--devices");
    tool.backends = opened.backends;
    return std::make_unique<RunSession>(bundle->program, opened.backends,
                                        opened.device, so);
  };
  tool.options = [&] { return o.run.sessionOptions(start); };
  return cli::runTool(tool);
}

} // namespace

int main(int argc, char **argv) {
  // The runtime never prints: its notices go to stderr here.
  proofc::setNoticeHandler(proofc::printNoticeToStderr);
  CLI::App app{"proofc-run: evaluate a compiled proofc bundle (.pcb) on a "
               "dataset, on the CPU or a CUDA GPU"};
  app.set_version_flag("--version",
                       std::string("proofc-run ") + proofcVersion());
  Options o;
  app.add_option("bundle", o.bundle, "The compiled program (.pcb)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("PROGRAM.pcb");
  cli::addRunFlags(app, o.run);
  if (std::optional<int> exitCode =
          cli::parseCommandLine(app, argc, argv, "proofc-run"))
    return *exitCode;
  // run() reports its own errors: in one process, or agreed between MPI
  // ranks (tools/common/RunTool.h).
  return run(o);
}
