//===- RankHost.h - What an MPI rank takes of its host: GPU, CPUs -*- C++
//-*-===//
//
// The GPU. `mpirun -np 4 proofc-run ... --device cuda` on a host of four GPUs:
// the user expects each rank on its own GPU, not all four on device 0. When
// --device is exactly "cuda" (not "cuda:N", which the user chose) and the
// launcher did not bind the GPUs itself (no CUDA_VISIBLE_DEVICES), rank r
// of a host takes device (local rank mod visible GPUs), the local rank read
// from the launcher's environment (docs/scale-out.md, "MPI ranks").
//
// The CPUs. A launcher may bind a rank to fewer CPUs than its host work
// needs: Open MPI binds each rank to one core when it starts two or fewer.
// A rank's host side -- the block builders, the device worker, ranking and
// the outcome rows -- then shares that core while the GPU waits (measured:
// docs/scale-out.md, "MPI"). The rank's default --threads is the CPUs it may
// run on, and rank 0 says when the binding is that narrow.
//
// Pure functions: the caller reads the environment, the affinity and counts
// the devices.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_RANKHOST_H
#define PROOFC_RUNTIME_RANKHOST_H

#include <cstdint>
#include <string>

namespace proofc {

/// The variables a launcher gives each process with its rank on its host,
/// in the order they are read: Open MPI, MPICH's Hydra, Slurm.
inline constexpr const char *kLocalRankVariables[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};

/// The variables with the number of ranks on this host, in the same order.
inline constexpr const char *kLocalSizeVariables[] = {
    "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};

/// The first of kLocalRankVariables that `getenv` gives as a non-negative
/// decimal integer; -1 when none does.
int64_t localRankFromEnvironment(const char *(*getenv)(const char *));
/// The same of kLocalSizeVariables.
int64_t localSizeFromEnvironment(const char *(*getenv)(const char *));

/// The device of a rank: `device` itself unless it is exactly "cuda",
/// `visibleDevicesSet` is false, `localRank` >= 0 and `gpuCount` > 0; then
/// "cuda:<localRank mod gpuCount>".
std::string rankDevice(const std::string &device, int64_t localRank,
                       int gpuCount, bool visibleDevicesSet);

/// The busy threads of a rank's host side: two block builders, the device
/// worker, the consumer (ranking, outcome rows).
inline constexpr int kRankBusyThreads = 4;

/// A notice for rank `rank` of `ranks` bound to `boundCpus` of its host's
/// `hostCpus`, shared by `localRanks` ranks (<= 0: unknown, taken as 1), or
/// "" when the binding leaves it kRankBusyThreads CPUs, or its share of the
/// host when that is fewer.
std::string rankBindingNotice(int64_t rank, int64_t ranks, int boundCpus,
                              int hostCpus, int64_t localRanks);

} // namespace proofc

#endif // PROOFC_RUNTIME_RANKHOST_H
