//===- RunCommand.cpp - proofc run ----------------------------------------===//
//
// Compile (parse, verify, export), choose the backend, then hand the rest of
// the run (loading, candidates, chunked run, metrics, summary, report and
// outcomes, Ctrl-C) to the runtime's RunSession. The backend is chosen before
// anything is loaded so that an unavailable device fails at once.
//
//===----------------------------------------------------------------------===//
#include "BackendSelection.h"
#include "Commands.h"
#include "ProgramLoader.h"

#include "RunSession.h"
#include "RunSummary.h"
#include "cuda/CudaBackend.h"

#include <chrono>

using namespace proofc;

int driver::runCommand(const RunOptions &o) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const RunSessionOptions so = o.run.sessionOptions(start);
  checkOutputPaths(so); // before anything slow
  std::optional<ProgramSpec> program = loadProgramSpec(o.program);
  if (!program)
    return 1;
  const double compileSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  SelectedBackend selected =
      selectBackend(o.run.device, o.run.threads, program->shape.B, o.program);
  RunSession session(*program, *selected.backend, selected.device, so);
  RunOutput out = session.evaluate();
  out.report.compileSeconds = compileSeconds;
  auto *cuda = dynamic_cast<CudaBackend *>(selected.backend.get());
  if (cuda) {
    // Kernels are compiled (cold) or loaded from the disk cache (warm) in
    // the backend's setup; the report says which.
    const CudaRunInfo &info = cuda->info();
    out.report.compileSeconds +=
        info.cache.compileSeconds + info.cache.loadSeconds;
  }

  // `--report -` / `--outcomes -` own stdout: the text goes to stderr.
  std::FILE *text = session.writesStandardOutput() ? stderr : stdout;
  session.printSummary(text, out);
  if (cuda)
    printCudaRunInfo(text, cuda->info());
  session.writeOutputs(out, text);
  return 0;
}
