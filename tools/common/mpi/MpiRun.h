//===- MpiRun.h - A run as the ranks of an MPI launch -----------*- C++ -*-===//
//
// Built only with MPI (PROOFC_MPI, tools/common/CMakeLists.txt); the only
// code of proofc that includes mpi.h. runTool() calls it when an MPI
// launcher started the tool (Launch.h). docs/scale-out.md, "MPI ranks",
// describes what each rank does and what rank 0 gathers and holds.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_MPI_MPIRUN_H
#define PROOFC_TOOLS_COMMON_MPI_MPIRUN_H

#include "Launch.h"
#include "RunTool.h"

namespace proofc::cli {

/// Initialises MPI, runs this rank's shard (rank r of N: the queries of
/// shardRange(r, N), as --shard r/N), and on rank 0 gathers every rank's
/// outcomes and writes the whole run's report and outcomes. Every step that
/// can fail is agreed between the ranks: a failure anywhere ends every rank
/// with the first failing rank's exit code, its message printed once, by
/// rank 0. Returns the exit code.
int runMpiRanks(const RunTool &tool, const Launch &launch);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_MPI_MPIRUN_H
