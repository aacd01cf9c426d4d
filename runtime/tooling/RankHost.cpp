//===- RankHost.cpp - What an MPI rank takes of its host: GPU, CPUs -------===//
#include "tooling/RankHost.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace proofc {

namespace {

/// The first of `names` that `getenv` gives as a non-negative decimal
/// integer; -1 when none does.
template <size_t N>
int64_t firstInteger(const char *const (&names)[N],
                     const char *(*getenv)(const char *)) {
  for (const char *name : names) {
    const char *value = getenv(name);
    if (value == nullptr || *value == '\0')
      continue;
    int64_t rank = 0;
    bool digits = true;
    for (const char *p = value; *p && digits; ++p) {
      digits = *p >= '0' && *p <= '9' &&
               rank <= (std::numeric_limits<int64_t>::max() - 9) / 10;
      if (digits) // not past the bound: the overflow would be undefined
        rank = rank * 10 + (*p - '0');
    }
    if (digits)
      return rank;
  }
  return -1;
}

} // namespace

int64_t localRankFromEnvironment(const char *(*getenv)(const char *)) {
  return firstInteger(kLocalRankVariables, getenv);
}

int64_t localSizeFromEnvironment(const char *(*getenv)(const char *)) {
  return firstInteger(kLocalSizeVariables, getenv);
}

std::string rankDevice(const std::string &device, int64_t localRank,
                       int gpuCount, bool visibleDevicesSet) {
  if (device != "cuda" || visibleDevicesSet || localRank < 0 || gpuCount <= 0)
    return device;
  return fmt::format("cuda:{}", localRank % gpuCount);
}

std::string rankBindingNotice(int64_t rank, int64_t ranks, int boundCpus,
                              int hostCpus, int64_t localRanks) {
  const int64_t share = hostCpus / std::max<int64_t>(localRanks, 1);
  if (boundCpus <= 0 || boundCpus >= std::min<int64_t>(kRankBusyThreads, share))
    return "";
  return fmt::format(
      "rank {} of {} may run on {} of the host's {} CPUs (the launcher's "
      "binding: Open MPI binds each rank to one core when it starts two or "
      "fewer); a rank's host work -- building candidates, feeding the "
      "device, ranking, the outcome rows -- then shares {} while the device "
      "waits: start mpirun with --bind-to none or --map-by slot:PE=<CPUs per "
      "rank> (srun: --cpus-per-task)",
      rank, ranks, boundCpus, hostCpus, boundCpus == 1 ? "it" : "them");
}

} // namespace proofc
