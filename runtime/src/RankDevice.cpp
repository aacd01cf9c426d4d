//===- RankDevice.cpp - The GPU of an MPI rank on a host of several -------===//
#include "RankDevice.h"

#include <fmt/format.h>

#include <limits>

namespace proofc {

int64_t localRankFromEnvironment(const char *(*getenv)(const char *)) {
  for (const char *name : kLocalRankVariables) {
    const char *value = getenv(name);
    if (value == nullptr || *value == '\0')
      continue;
    int64_t rank = 0;
    bool digits = true;
    for (const char *p = value; *p && digits; ++p) {
      digits = *p >= '0' && *p <= '9' &&
               rank <= (std::numeric_limits<int64_t>::max() - 9) / 10;
      rank = rank * 10 + (*p - '0');
    }
    if (digits)
      return rank;
  }
  return -1;
}

std::string rankDevice(const std::string &device, int64_t localRank,
                       int gpuCount, bool visibleDevicesSet) {
  if (device != "cuda" || visibleDevicesSet || localRank < 0 || gpuCount <= 0)
    return device;
  return fmt::format("cuda:{}", localRank % gpuCount);
}

} // namespace proofc
