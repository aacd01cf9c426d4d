//===- RunTool.h - The run flow of proofc run and proofc-run ----*- C++ -*-===//
//
// `proofc run` and `proofc-run` differ in where the program and the backend
// come from; the flow around them -- session, evaluation, summary, outputs,
// errors -- is this one, in one process or as the ranks of an MPI launch
// (Launch.h, mpi/MpiRun.h, docs/scale-out.md). The tool gives the steps
// that are its own; runTool() runs them where the launch says.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_RUNTOOL_H
#define PROOFC_TOOLS_COMMON_RUNTOOL_H

#include "proofc/runtime/Evaluation.h"
#include "tooling/RunSession.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace proofc::cli {

struct RunTool {
  std::string name; ///< "proofc", "proofc-run": the prefix of every error
  /// The session's options from the command line (RunFlags::sessionOptions:
  /// throws proofc::Error on a malformed flag).
  std::function<RunSessionOptions()> options;
  /// Reads the program, opens the device and makes the session with
  /// `options` (the tool keeps the program and the backend alive). Throws
  /// proofc::Error; returns null when it printed its own diagnostics (an
  /// MLIR program that does not verify).
  std::function<std::unique_ptr<RunSession>(const RunSessionOptions &)> open;
  /// Set by open(): the seconds from the start to the program in hand
  /// (`proofc run`: parsed, verified, exported; `proofc-run`: the bundle
  /// read), the first part of the report's compile_seconds.
  double programSeconds = 0;
  /// Set by open(): the backends it opened (one per --devices ordinal).
  /// Their kernels' time completes compile_seconds (compileSeconds), and
  /// their summary lines (Backend::info) follow the run's summary.
  std::vector<Backend *> backends;
};

/// The report's timings.compile_seconds, one way for both tools: the
/// program's seconds, plus the longest wait of a backend for its kernel
/// modules (BackendInfo::modulesSeconds: compiled or loaded from the disk
/// cache, all modules at once, every device at once).
double compileSeconds(double programSeconds,
                      const std::vector<Backend *> &backends);

/// Runs the tool: in this process, or, when an MPI launcher started it
/// (detectLaunch), as one rank of the launch (runMpiRanks). Returns the exit
/// code, errors reported as runReportingErrors does.
int runTool(const RunTool &tool);

/// The output part of the flow, shared by one process and MPI's rank 0:
/// completes `output`, prints the summary and writes the outputs.
void finishRun(const RunTool &tool, RunSession &session, RunOutput &output);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_RUNTOOL_H
