//===- Launch.h - How a run tool was started: alone or as MPI ranks -*- C++
//-*-===//
//
// A run tool initialises MPI only when an MPI launcher started it, so that a
// plain start never touches MPI (and a build without MPI runs everywhere).
// The launcher is told by the environment it gives its processes, read here
// without any MPI header (docs/scale-out.md, "MPI ranks"):
//
//   OMPI_COMM_WORLD_SIZE / OMPI_COMM_WORLD_RANK  Open MPI's mpirun/mpiexec
//   PMIX_RANK (+ PMIX_NAMESPACE)                 PMIx: Open MPI 5's prterun,
//                                                srun --mpi=pmix
//   PMI_SIZE / PMI_RANK                          PMI-1/2: srun --mpi=pmi2,
//                                                MPICH's Hydra mpiexec
//
// (SLURM_PROCID alone is not a launch: a plain `srun -n 4 proofc-run` starts
// four independent processes.) The rank count comes from the same variables
// or SLURM_STEP_NUM_TASKS, and MPI_Comm_size is the final word.
//
// A checkpoint directory of an MPI launch holds one subdirectory per rank,
// rank-<r>-of-<N>/, each a checkpoint of the shard r/N (Checkpoint.h);
// checkCheckpointLaunch refuses a directory made by another rank count.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_LAUNCH_H
#define PROOFC_TOOLS_COMMON_LAUNCH_H

#include <cstdint>
#include <string>

namespace proofc::cli {

struct Launch {
  bool mpi = false; ///< started by an MPI launcher
  std::string
      launcher; ///< the variable that told it, e.g. "OMPI_COMM_WORLD_SIZE=3"
  int64_t ranks = -1; ///< from the environment; -1: not said
};

/// The launch this process's environment describes.
Launch detectLaunch();

/// True when this build has MPI (PROOFC_MPI found it).
bool builtWithMpi();

/// DIR/rank-<rank>-of-<ranks>: rank's checkpoint under an MPI launch.
std::string rankCheckpointDir(const std::string &dir, int64_t rank,
                              int64_t ranks);

/// Throws proofc::Error("DIR: ...") when the checkpoint DIR (when it exists)
/// was made by another launch than `ranks` MPI ranks (0: one process without
/// MPI): a one-process manifest under MPI, or rank-*-of-M directories with
/// M != ranks.
void checkCheckpointLaunch(const std::string &dir, int64_t ranks);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_LAUNCH_H
