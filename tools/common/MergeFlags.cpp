//===- MergeFlags.cpp - The flags of proofc merge and proofc-merge --------===//
#include "MergeFlags.h"

#include "CommandLine.h"

#include <CLI/CLI.hpp>

namespace proofc::cli {

void addMergeFlags(CLI::App &command, MergeOptions &o) {
  addPathOption(command, "parts", o.parts,
                "The parts written by --shard i/n --part FILE, one per "
                "shard, in any order; with --proofs also every shard's "
                "proofs part (--shard i/n --proofs FILE)",
                "PART")
      ->required();
  addPathOption(command, "--report", o.report,
                "Write the merged JSON report here (- for standard output)",
                "FILE.json");
  addPathOption(command, "--outcomes", o.outcomes,
                "Write every candidate's outcome here (TSV; - for standard "
                "output)",
                "FILE.tsv");
  addPathOption(command, "--proofs", o.proofs,
                "Write the proofs of the proved candidates here (- for "
                "standard output), from the shards' proofs parts given "
                "with the parts (docs/proofs.md)",
                "FILE");
  addPathOption(command, "--data", o.data,
                "The dataset directory (default: the one the parts name; "
                "its fingerprint must be the parts')",
                "DIR");
}

} // namespace proofc::cli
