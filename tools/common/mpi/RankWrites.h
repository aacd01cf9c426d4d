//===- RankWrites.h - The options every MPI rank must agree on --*- C++ -*-===//
//
// What a rank sends rank 0, and what rank 0 writes from it, depends on some
// of the run's options: --outcomes makes every rank send its outcome rows,
// --proofs its proofs part (in --proofs-format, of --proofs-of), --report
// and --checkpoint what is written at all, and --no-shared-lists (with
// those) whether the ranks exchange shared lists' tallies
// (SharedTallies.h). A rank started with other ones
// (an MPMD launch, a wrapper script that adds a flag on one host) would send
// what rank 0 does not wait for, or not send what it waits for: before, a
// rank without --proofs finished its work and left rank 0 waiting for its
// proofs forever. MpiRun.cpp gathers every rank's rankWrites() on rank 0
// with its inputs (step 2, before any work) and refuses a rank whose are
// not rank 0's, naming the option and the rank.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_RANKWRITES_H
#define PROOFC_TOOLS_RANKWRITES_H

#include "tooling/RunSession.h"

#include <nlohmann/json.hpp>

#include <string>

namespace proofc::cli {

/// The options of `options` (as given, before a rank's own changes) that
/// decide what a rank writes or sends: flag -> value (an output path as
/// whether it is given: each host may spell it its own way).
nlohmann::json rankWrites(const RunSessionOptions &options);

/// "" when `a` and `b` agree, else "<flag> is <a> on <aName>, <b> on
/// <bName>" for the first option that differs.
std::string rankWritesDifference(const nlohmann::json &a,
                                 const std::string &aName,
                                 const nlohmann::json &b,
                                 const std::string &bName);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_RANKWRITES_H
