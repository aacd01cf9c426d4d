//===- SharedTallies.h - Shared lists' tallies between MPI ranks -*- C++
//-*-===//
//
// In a full ranking the test queries that share (r, t) or (h, r) share
// their lists' corruptions (runtime/src/session/SharedLists.h), and they lie
// all over the split: with one shard of the queries per rank, each rank
// would run every such key it holds again (fb15k-237 on two ranks: 15 %
// more work than one process, an efficiency of 0.82). So every rank plans
// the same owner for each key that several shards hold (the shards' work
// balanced), only the owner runs its corruptions, and after the run the
// ranks exchange the owners' tallies (counts and sorted finite scores, what
// the ranks need): one MPI_Alltoallv, then each rank ranks its waiting lists
// (RunSession::resolveCrossShard). The report and the outcomes are those of
// one process, bit for bit. Only a run that keeps nothing but the tally
// does it (sharesAcrossRanks()); the others share within their shard.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_MPI_SHAREDTALLIES_H
#define PROOFC_TOOLS_COMMON_MPI_SHAREDTALLIES_H

#include "mpi/MpiWorld.h"
#include "tooling/RunSession.h"

namespace proofc::cli::mpi {

/// Whether the ranks of a launch with these options (as given, before a
/// rank's own changes; agreed through RankWrites.h) share lists across
/// ranks: lists shared, more than one rank, and nothing kept but the tally
/// (no outcomes, proofs or checkpoint).
bool sharesAcrossRanks(const RunSessionOptions &options, int ranks);

/// After every rank's run (collective): sends each rank the tallies it
/// waits for, receives this rank's, and completes `own` (its pairs, counts
/// and report).
Status exchangeSharedTallies(const World &world, RunSession &session,
                             RunOutput &own);

} // namespace proofc::cli::mpi

#endif // PROOFC_TOOLS_COMMON_MPI_SHAREDTALLIES_H
