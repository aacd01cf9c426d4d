//===- Merge.h - Shards' parts into one report and outcomes -----*- C++ -*-===//
//
// `proofc merge` and `proofc-merge` (docs/scale-out.md): the parts written
// by `--shard i/n --part FILE`, one per shard, become the report and the
// outcomes TSV one process would have written. The parts must agree (one
// RunIdentity but for the shard index, the same rank metric options, every
// shard i of n exactly once); the dataset is read again (from the parts'
// report, or `data`) and must have their fingerprint; the candidates are
// rebuilt, the outcomes put in place, and the metrics, rank metrics and
// TSV computed by the same code as one run: bit for bit the same numbers
// and bytes; with --proofs the shards' proofs parts become the proofs file
// (ProofParts.h), byte for byte one process's. The report's other fields are
// shard 0's, but "timings", which add up every part's. Kept in the runtime so
// that a runtime-only tool (an MPI rank 0, proofc-merge) can call it without
// MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_MERGE_H
#define PROOFC_RUNTIME_MERGE_H

#include <cstdio>
#include <string>
#include <vector>

namespace proofc {

struct MergeOptions {
  std::vector<std::string> parts; ///< part files, any order
  std::string report;             ///< JSON report path; empty: none
  std::string outcomes;           ///< outcomes TSV path; empty: none
  /// Proofs file path (docs/proofs.md); empty: none. Set, `parts` also
  /// holds every shard's proofs part (ProofParts.h, told apart by its
  /// first line), and the file is the one a run of one process writes.
  std::string proofs;
  /// The dataset directory; empty: the one the parts' report names.
  std::string data;
};

/// Checks the parts and writes the outputs (one OutputSet, as a run does),
/// naming each on `out`. Throws proofc::Error naming the part file and what
/// disagrees.
void mergeParts(const MergeOptions &options, std::FILE *out = stdout);

} // namespace proofc

#endif // PROOFC_RUNTIME_MERGE_H
