//===- DriverOptions.h - Command-line options of proofc ---------*- C++ -*-===//
//
// One struct per subcommand and the CLI11 wiring that fills it, so main only
// dispatches and a new subcommand (compile) adds one struct and one function.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_DRIVEROPTIONS_H
#define PROOFC_TOOLS_PROOFC_DRIVEROPTIONS_H

#include "RunFlags.h"
#include "tooling/Merge.h"

#include <cstdint>
#include <string>

namespace CLI {
class App;
} // namespace CLI

namespace proofc::driver {

struct RunOptions {
  std::string program; ///< PROGRAM.mlir
  cli::RunFlags run;   ///< the flags shared with proofc-run
};

struct InitWeightsOptions {
  std::string program; ///< PROGRAM.mlir or PROGRAM.pcb
  std::string data;
  uint64_t seed = 0;
  std::string output;
};

struct WeightsSpecOptions {
  std::string program; ///< PROGRAM.mlir or PROGRAM.pcb
  std::string data;
};

/// Adds `proofc run` to `app`; the options land in `options`.
CLI::App *addRunCommand(CLI::App &app, RunOptions &options);
/// Adds `proofc init-weights` to `app`.
CLI::App *addInitWeightsCommand(CLI::App &app, InitWeightsOptions &options);
/// Adds `proofc weights-spec` to `app`.
CLI::App *addWeightsSpecCommand(CLI::App &app, WeightsSpecOptions &options);
/// Adds `proofc merge` to `app` (the flags of proofc-merge, MergeFlags.h).
CLI::App *addMergeCommand(CLI::App &app, MergeOptions &options);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_DRIVEROPTIONS_H
