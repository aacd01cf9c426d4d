//===- RankDevice.h - The GPU of an MPI rank on a host of several -*- C++ -*-===//
//
// `mpirun -np 4 proofc-run ... --device cuda` on a host of four GPUs: the
// user expects each rank on its own GPU, not all four on device 0. When
// --device is exactly "cuda" (not "cuda:N", which the user chose) and the
// launcher did not bind the GPUs itself (no CUDA_VISIBLE_DEVICES), rank r
// of a host takes device (local rank mod visible GPUs), the local rank read
// from the launcher's environment (docs/scale-out.md, "MPI ranks"). Pure
// functions: the caller reads the environment and counts the devices.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_RANKDEVICE_H
#define PROOFC_RUNTIME_RANKDEVICE_H

#include <cstdint>
#include <string>

namespace proofc {

/// The variables a launcher gives each process with its rank on its host,
/// in the order they are read: Open MPI, MPICH's Hydra, Slurm.
inline constexpr const char *kLocalRankVariables[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};

/// The first of kLocalRankVariables that `getenv` gives as a non-negative
/// decimal integer; -1 when none does.
int64_t localRankFromEnvironment(const char *(*getenv)(const char *));

/// The device of a rank: `device` itself unless it is exactly "cuda",
/// `visibleDevicesSet` is false, `localRank` >= 0 and `gpuCount` > 0; then
/// "cuda:<localRank mod gpuCount>".
std::string rankDevice(const std::string &device, int64_t localRank,
                       int gpuCount, bool visibleDevicesSet);

} // namespace proofc

#endif // PROOFC_RUNTIME_RANKDEVICE_H
