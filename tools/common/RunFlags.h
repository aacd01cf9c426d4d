//===- RunFlags.h - The run flags of proofc run and proofc-run --*- C++ -*-===//
//
// `proofc run PROGRAM.mlir` and `proofc-run PROGRAM.pcb` differ in where the
// program comes from; everything else about a run -- dataset, weights,
// candidates, device, threads, chunking, progress, outputs -- is one set of
// flags, defined here once and mapped onto the runtime's RunSessionOptions.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_RUNFLAGS_H
#define PROOFC_TOOLS_COMMON_RUNFLAGS_H

#include "tooling/RunSession.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace CLI {
class App;
} // namespace CLI

namespace proofc::cli {

struct RunFlags {
  std::string data;    ///< --data DIR
  std::string weights; ///< --weights W.safetensors
  std::string split = "test";
  int64_t corruptions = 0; ///< <= 0: every filtered corruption
  uint64_t seed = 0;
  int64_t queries = -1;       ///< < 0: all
  std::string device = "cpu"; ///< cpu | cuda | auto
  /// --devices all|0,1,...: one worker per GPU (SessionOptions::devices);
  /// excludes --device, and means CUDA.
  std::string devices;
  int threads = 0;             ///< host backend threads; 0: all
  std::string facts = "train"; ///< train | train+valid
  int64_t maxPool = 0;         ///< candidates per backend run; <= 0: no limit
  /// --block N: candidates per streamed block (whole queries).
  int64_t block = kDefaultBlockCandidates;
  bool quiet = false;                ///< no progress display
  std::string report;                ///< JSON report path; empty: none
  std::string outcomes;              ///< outcomes TSV path; empty: none
  std::string proofs;                ///< proofs file path; empty: none
  std::string proofsFormat = "json"; ///< json | prolog
  std::string proofsOf = "all";      ///< all | positives
  std::string hits = "1,3,10";       ///< the k of Hits@k in rank_metrics
  bool perRelation = false;          ///< rank_metrics per relation too
  int64_t bootstrap = 0;             ///< bootstrap resamples (0: no intervals)
  uint64_t bootstrapSeed = 0;
  std::string shard;         ///< --shard i/n; empty: the whole run
  std::string part;          ///< --part FILE (with --shard)
  bool partOutcomes = false; ///< --part-outcomes: the part carries the rows
  std::string checkpoint;    ///< --checkpoint DIR; empty: none
  int64_t checkpointEvery = kDefaultCheckpointEvery;

  /// The session's options (throws proofc::Error("--shard ...") for a
  /// malformed --shard); `started` is where the report's total_seconds
  /// starts (the tool's start, before the program is compiled or loaded).
  RunSessionOptions
  sessionOptions(std::chrono::steady_clock::time_point started) const;
};

/// Adds the run flags to `command` (the `proofc run` subcommand, or
/// proofc-run's app), filling `flags`: --data and --weights (required),
/// --split, --corruptions, --seed, --queries, --device, --threads, --facts,
/// --max-pool, --block, --quiet, --report, --outcomes, --proofs,
/// --proofs-format,
/// --proofs-of, --hits, --per-relation, --bootstrap, --bootstrap-seed,
/// --shard, --part, --part-outcomes, --checkpoint, --checkpoint-every
/// (docs/scale-out.md).
void addRunFlags(CLI::App &command, RunFlags &flags);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_RUNFLAGS_H
