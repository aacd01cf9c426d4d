//===- MergeFlags.cpp - The flags of proofc merge and proofc-merge --------===//
#include "MergeFlags.h"

#include "CommandLine.h"

#include <CLI/CLI.hpp>

namespace proofc::cli {

void addMergeFlags(CLI::App &command, MergeOptions &o) {
  command
      .add_option("parts", o.parts,
                  "The parts written by --shard i/n --part FILE, one per "
                  "shard, in any order; with --proofs also every shard's "
                  "proofs part (--shard i/n --proofs FILE)")
      ->required()
      ->check(nonEmptyPath())
      ->type_name("PART");
  command
      .add_option("--report", o.report,
                  "Write the merged JSON report here (- for standard output)")
      ->check(nonEmptyPath())
      ->type_name("FILE.json");
  command
      .add_option("--outcomes", o.outcomes,
                  "Write every candidate's outcome here (TSV; - for standard "
                  "output)")
      ->check(nonEmptyPath())
      ->type_name("FILE.tsv");
  command
      .add_option("--proofs", o.proofs,
                  "Write the proofs of the proved candidates here (- for "
                  "standard output), from the shards' proofs parts given "
                  "with the parts (docs/proofs.md)")
      ->check(nonEmptyPath())
      ->type_name("FILE");
  command
      .add_option("--data", o.data,
                  "The dataset directory (default: the one the parts name; "
                  "its fingerprint must be the parts')")
      ->check(nonEmptyPath())
      ->type_name("DIR");
}

} // namespace proofc::cli
