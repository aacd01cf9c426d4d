//===- DriverOptions.h - Command-line options of proofc ---------*- C++ -*-===//
//
// One struct per subcommand and the CLI11 wiring that fills it, so main only
// dispatches and a new subcommand (compile) adds one struct and one function.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_PROOFC_DRIVEROPTIONS_H
#define PROOFC_TOOLS_PROOFC_DRIVEROPTIONS_H

#include <cstdint>
#include <string>

namespace CLI {
class App;
} // namespace CLI

namespace proofc::driver {

struct RunOptions {
  std::string program;
  std::string data;
  std::string weights;
  std::string split = "test";
  int64_t corruptions = 0; ///< <= 0: every filtered corruption
  uint64_t seed = 0;
  int64_t queries = -1; ///< < 0: all
  std::string device = "cpu";
  int threads = 0; ///< 0: every hardware thread
  std::string facts = "train";
  int64_t maxPool = 0; ///< candidates per backend run; <= 0: no limit
  bool quiet = false;  ///< no progress display
  std::string report;
  std::string outcomes;
};

struct InitWeightsOptions {
  std::string program;
  std::string data;
  uint64_t seed = 0;
  std::string output;
};

/// Adds `proofc run` to `app`; the options land in `options`.
CLI::App *addRunCommand(CLI::App &app, RunOptions &options);
/// Adds `proofc init-weights` to `app`.
CLI::App *addInitWeightsCommand(CLI::App &app, InitWeightsOptions &options);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_DRIVEROPTIONS_H
