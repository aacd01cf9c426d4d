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
  /// What the flags bind to, field by field (defaults: the options').
  RunSessionOptions options;
  /// The flags that are text on the command line and not a field:
  std::string facts = "train"; ///< --facts train|train+valid
  std::string hits;            ///< --hits K,K,... (default: the options')
  std::string shard;           ///< --shard i/n; empty: the whole run

  RunFlags();

  /// The session's options: `options` with the text flags parsed (throws
  /// proofc::Error("--shard ...") for a malformed --shard); `started` is
  /// where the report's total_seconds starts (the tool's start, before the
  /// program is compiled or loaded).
  RunSessionOptions
  sessionOptions(std::chrono::steady_clock::time_point started) const;
};

/// Adds the run flags to `command` (the `proofc run` subcommand, or
/// proofc-run's app), filling `flags`: --data and --weights (required),
/// --split, --corruptions, --seed, --queries, --facts (the candidates),
/// --device, --devices, --workers-per-device, --threads, --cond, --unroll,
/// --memo-entries (the
/// backend), --max-pool, --block, --hits, --per-relation, --bootstrap,
/// --bootstrap-seed, --quiet, --report, --outcomes, --proofs,
/// --proofs-format, --proofs-of, --shard, --part, --part-outcomes,
/// --checkpoint, --checkpoint-every (docs/options.md, docs/scale-out.md).
void addRunFlags(CLI::App &command, RunFlags &flags);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_RUNFLAGS_H
