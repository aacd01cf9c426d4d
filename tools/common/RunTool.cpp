//===- RunTool.cpp - The run flow of proofc run and proofc-run ------------===//
#include "RunTool.h"

#include "CommandLine.h"
#include "Launch.h"
#ifdef PROOFC_HAVE_MPI
#include "mpi/MpiRun.h"
#endif

#include "support/Fail.h"
#include "tooling/RunSummary.h"

#include <algorithm>

namespace proofc::cli {

double compileSeconds(double programSeconds,
                      const std::vector<Backend *> &backends) {
  double modules = 0;
  for (const Backend *b : backends)
    modules = std::max(modules, b->info().modulesSeconds);
  return programSeconds + modules;
}

void finishRun(const RunTool &tool, RunSession &session, RunOutput &output) {
  output.report.compileSeconds =
      compileSeconds(tool.programSeconds, tool.backends);
  // `--report -` / `--outcomes -` own stdout: the text goes to stderr.
  std::FILE *text = session.writesStandardOutput() ? stderr : stdout;
  session.printSummary(text, output);
  for (const Backend *b : tool.backends)
    printBackendInfo(text, *b);
  session.writeOutputs(output, text);
}

int runTool(const RunTool &tool) {
  const Launch launch = detectLaunch();
  if (launch.mpi) {
#ifdef PROOFC_HAVE_MPI
    return runMpiRanks(tool, launch);
#else
    // N copies of a whole run would each write the same outputs.
    if (launch.ranks != 1)
      return runReportingErrors(tool.name, [&]() -> int {
        fail("started by an MPI launcher ({}), but this {} was built without "
             "MPI (cmake -DPROOFC_MPI=ON with libopenmpi-dev); start it "
             "without mpirun/srun, or rebuild",
             launch.launcher, tool.name);
      });
#endif
  }
  return runReportingErrors(tool.name, [&] {
    const RunSessionOptions options = tool.options();
    if (!options.checkpoint.empty())
      checkCheckpointLaunch(options.checkpoint, 0);
    std::unique_ptr<RunSession> session = tool.open(options);
    if (!session)
      return 1; // its diagnostics are printed
    RunOutput output = session->evaluate();
    finishRun(tool, *session, output);
    return 0;
  });
}

} // namespace proofc::cli
