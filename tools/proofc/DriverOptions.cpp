//===- DriverOptions.cpp - Command-line options of the proofc driver ------===//
#include "DriverOptions.h"

#include "CommandLine.h"
#include "MergeFlags.h"

#include <CLI/CLI.hpp>

using namespace proofc::driver;

CLI::App *proofc::driver::addRunCommand(CLI::App &app, RunOptions &o) {
  CLI::App *run = app.add_subcommand(
      "run", "Compile PROGRAM and evaluate it on a dataset (spec §5-§6)");
  run->add_option("program", o.program, "The eval program (.mlir)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("PROGRAM.mlir");
  cli::addRunFlags(*run, o.run);
  return run;
}

CLI::App *proofc::driver::addInitWeightsCommand(CLI::App &app,
                                                InitWeightsOptions &o) {
  CLI::App *init = app.add_subcommand(
      "init-weights",
      "Write deterministic random policy weights for PROGRAM on a dataset");
  init->add_option("program", o.program,
                   "The eval program (.mlir) or a compiled bundle (.pcb)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("PROGRAM");
  init->add_option("--data", o.data, "Dataset directory (sets E and R)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("DIR");
  cli::addIntegerOption(*init, "--seed", o.seed,
                        "Seed of the initialization (0 to 2^64 - 1)");
  init->add_option("-o,--output", o.output, "Output file (.safetensors)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("W.safetensors");
  return init;
}

CLI::App *proofc::driver::addWeightsSpecCommand(CLI::App &app,
                                                WeightsSpecOptions &o) {
  CLI::App *spec = app.add_subcommand(
      "weights-spec", "Print, as JSON, the tensors PROGRAM needs on a dataset "
                      "and the metadata a weights file for it carries");
  spec->add_option("program", o.program,
                   "The eval program (.mlir) or a compiled bundle (.pcb)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("PROGRAM");
  spec->add_option("--data", o.data, "Dataset directory (sets E and R)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("DIR");
  return spec;
}

CLI::App *proofc::driver::addMergeCommand(CLI::App &app, MergeOptions &o) {
  CLI::App *merge = app.add_subcommand(
      "merge", "Combine the parts of a sharded run (--shard i/n --part FILE) "
               "into the report and outcomes of one run");
  cli::addMergeFlags(*merge, o);
  return merge;
}
