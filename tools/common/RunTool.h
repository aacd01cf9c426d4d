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

#include "tooling/RunSession.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace proofc {
class CudaBackend;
} // namespace proofc

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
  /// Completes the report of evaluate()'s output (the compile seconds).
  std::function<void(RunOutput &)> complete;
  /// The CUDA backends open() opened (one per --devices ordinal), if it
  /// did: their run info is printed after the summary.
  std::vector<CudaBackend *> cuda;
};

/// Runs the tool: in this process, or, when an MPI launcher started it
/// (detectLaunch), as one rank of the launch (runMpiRanks). Returns the exit
/// code, errors reported as runReportingErrors does.
int runTool(const RunTool &tool);

/// The output part of the flow, shared by one process and MPI's rank 0:
/// completes `output`, prints the summary and writes the outputs.
void finishRun(const RunTool &tool, RunSession &session, RunOutput &output);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_RUNTOOL_H
