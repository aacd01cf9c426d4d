//===- DriverOptions.cpp - Command-line options of the proofc driver ------===//
#include "DriverOptions.h"

#include <CLI/CLI.hpp>

using namespace proofc::driver;

CLI::App *proofc::driver::addRunCommand(CLI::App &app, RunOptions &o) {
  CLI::App *run = app.add_subcommand(
      "run", "Compile PROGRAM and evaluate it on a dataset (spec §5-§6)");
  run->add_option("program", o.program, "The eval program (.mlir)")
      ->required()
      ->type_name("PROGRAM.mlir");
  run->add_option("--data", o.data,
                  "Dataset directory (train/valid/test.tsv, rules.txt)")
      ->required()
      ->type_name("DIR");
  run->add_option("--weights", o.weights, "Policy weights (.safetensors)")
      ->required()
      ->type_name("W.safetensors");
  run->add_option("--split", o.split, "Split whose triples are the queries")
      ->check(CLI::IsMember({"train", "valid", "test"}))
      ->capture_default_str();
  run->add_option("--corruptions", o.corruptions,
                  "Corruptions sampled per query and mode (<= 0: all)")
      ->capture_default_str();
  run->add_option("--seed", o.seed, "Seed of the corruption sampler")
      ->capture_default_str();
  run->add_option("--queries", o.queries, "Only the first N queries (< 0: all)")
      ->capture_default_str();
  run->add_option("--device", o.device, "Backend: cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  run->add_option("--threads", o.threads,
                  "CPU threads for the host backend (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--facts", o.facts, "Facts the prover may use")
      ->check(CLI::IsMember({"train", "train+valid"}))
      ->capture_default_str();
  run->add_option("--max-pool", o.maxPool,
                  "Candidates per backend run (<= 0: as many as fit)")
      ->capture_default_str();
  run->add_flag("--quiet", o.quiet, "No progress display on stderr");
  run->add_option("--report", o.report, "Write the JSON report here")
      ->type_name("FILE.json");
  run->add_option("--outcomes", o.outcomes,
                  "Write every candidate's outcome here (TSV)")
      ->type_name("FILE.tsv");
  return run;
}

CLI::App *proofc::driver::addInitWeightsCommand(CLI::App &app,
                                                InitWeightsOptions &o) {
  CLI::App *init = app.add_subcommand(
      "init-weights",
      "Write deterministic random policy weights for PROGRAM on a dataset");
  init->add_option("program", o.program, "The eval program (.mlir)")
      ->required()
      ->type_name("PROGRAM.mlir");
  init->add_option("--data", o.data, "Dataset directory (sets E and R)")
      ->required()
      ->type_name("DIR");
  init->add_option("--seed", o.seed, "Seed of the initialization")
      ->capture_default_str();
  init->add_option("-o,--output", o.output, "Output file (.safetensors)")
      ->required()
      ->type_name("W.safetensors");
  return init;
}
