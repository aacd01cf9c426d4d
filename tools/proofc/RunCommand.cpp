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

#include "RunTool.h"
#include "support/Timing.h"
#include "tooling/RunSession.h"

#include <memory>
#include <optional>

using namespace proofc;

int driver::runCommand(const RunOptions &o) {
  const Clock::time_point start = Clock::now();
  // What the session runs on, kept alive by the steps below.
  std::optional<ProgramSpec> program;
  OpenedBackends selected;
  cli::RunTool tool;
  tool.name = "proofc";
  tool.open = [&](const RunSessionOptions &so) -> std::unique_ptr<RunSession> {
    checkOutputPaths(so, {{o.program, "program", ""}}); // before anything slow
    program = loadProgramSpec(o.program);
    if (!program)
      return nullptr; // the diagnostics are printed
    tool.programSeconds = secondsSince(start);
    selected = selectBackends(so, program->shape.B, o.program);
    tool.backends = selected.backends;
    return std::make_unique<RunSession>(*program, selected.backends,
                                        selected.device, so);
  };
  tool.options = [&] { return o.run.sessionOptions(start); };
  return cli::runTool(tool);
}
