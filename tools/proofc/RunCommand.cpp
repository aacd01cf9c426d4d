//===- RunCommand.cpp - proofc run ----------------------------------------===//
//
// Compile (parse, verify, export), choose the backend, then hand the rest of
// the run (loading, candidates, chunked run, metrics, summary, report and
// outcomes, Ctrl-C) to the runtime's RunSession, in one process or as MPI
// ranks (tools/common/RunTool.h). The backend is chosen before anything is
// loaded so that an unavailable device fails at once.
//
//===----------------------------------------------------------------------===//
#include "BackendSelection.h"
#include "Commands.h"
#include "ProgramLoader.h"

#include "RunSession.h"
#include "RunTool.h"
#include "cuda/CudaBackend.h"

#include <chrono>
#include <memory>
#include <optional>

using namespace proofc;

int driver::runCommand(const RunOptions &o) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  // What the session runs on, kept alive by the steps below.
  std::optional<ProgramSpec> program;
  double compileSeconds = 0;
  SelectedBackend selected;
  cli::RunTool tool;
  tool.name = "proofc";
  tool.open = [&](const RunSessionOptions &so) -> std::unique_ptr<RunSession> {
    checkOutputPaths(so); // before anything slow
    program = loadProgramSpec(o.program);
    if (!program)
      return nullptr; // the diagnostics are printed
    compileSeconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    selected = selectBackend(so.device, so.threads, program->shape.B,
                             o.program);
    tool.cuda = dynamic_cast<CudaBackend *>(selected.backend.get());
    return std::make_unique<RunSession>(*program, *selected.backend,
                                        selected.device, so);
  };
  tool.complete = [&](RunOutput &out) {
    out.report.compileSeconds = compileSeconds;
    if (tool.cuda) {
      // Kernels are compiled (cold) or loaded from the disk cache (warm) in
      // the backend's setup; the report says which.
      const CudaRunInfo &info = tool.cuda->info();
      out.report.compileSeconds +=
          info.cache.compileSeconds + info.cache.loadSeconds;
    }
  };
  tool.options = [&] { return o.run.sessionOptions(start); };
  return cli::runTool(tool);
}
