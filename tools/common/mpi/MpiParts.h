//===- MpiParts.h - The parts, rows and proofs sent to rank 0 ---*- C++ -*-===//
//
// Internal to tools/common/mpi: steps 4 and 5 of an MPI launch (MpiRun.cpp),
// defined in MpiParts.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_MPI_MPIPARTS_H
#define PROOFC_TOOLS_COMMON_MPI_MPIPARTS_H

#include "mpi/MpiWorld.h"
#include "tooling/RunSession.h"

#include <string>
#include <vector>

namespace proofc::cli::mpi {

/// Step 4 on the ranks other than 0: the part (the tally), then the rows
/// when asked, from where the run kept them (its spool or its checkpoint's
/// range files), in messages of at most 64 MiB; the last message
/// (kTagRowsEnd) is empty, or the error that stopped the rows.
Status sendPart(const World &world, const RunSession &session,
                const RunOutput &output);

/// Step 4 on rank 0: every other rank's part, checked, its tally taken and
/// its rows appended, in rank order; then the whole run's output. Receives
/// every part and its rows even after a failure, so that no rank is left
/// sending.
Status gatherParts(const World &world, RunSession &session,
                   const RunOutput &own, std::vector<std::string> devices,
                   RunOutput &whole);

/// Step 5 (with --proofs) on the ranks other than 0: the shard's proofs
/// part (ProofParts.h), its size first (-1: the message of the failure
/// that kept the rank from making it follows).
Status sendProofs(const World &world, const RunSession &session,
                  const RunOutput &output);

/// Step 5 on rank 0: every other rank's proofs part, checked (its shard,
/// the inputs, the format), its lines after rank 0's in rank (= query)
/// order: `whole`'s proof lines, those of one process. Receives every part
/// even after a failure, so that no rank is left sending.
Status gatherProofs(const World &world, const RunSession &session,
                    const RunOutput &own, RunOutput &whole);

} // namespace proofc::cli::mpi

#endif // PROOFC_TOOLS_COMMON_MPI_MPIPARTS_H
