//===- MemoryBudget.cpp - Available memory and the up-front size check ----===//
#include "data/MemoryBudget.h"

#include "support/Fail.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <unistd.h>

namespace proofc {

uint64_t availableMemoryBytes() {
  if (const char *fake = std::getenv("PROOFC_TEST_MEMORY_BYTES");
      fake && *fake) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(fake, &end, 10);
    if (end && *end == '\0')
      return v;
  }
  if (std::FILE *f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f))
      found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    std::fclose(f);
    if (found)
      return saturatingBytes(kib, 1024);
  }
  long pages = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && size > 0)
    return saturatingBytes(static_cast<uint64_t>(pages),
                           static_cast<uint64_t>(size));
  return std::numeric_limits<uint64_t>::max(); // unknown: do not refuse
}

uint64_t saturatingBytes(uint64_t count, uint64_t bytesEach) {
  if (bytesEach != 0 &&
      count > std::numeric_limits<uint64_t>::max() / bytesEach)
    return std::numeric_limits<uint64_t>::max();
  return count * bytesEach;
}

std::string formatBytes(uint64_t bytes) {
  static const char *const kUnits[] = {"KiB", "MiB", "GiB",
                                       "TiB", "PiB", "EiB"};
  if (bytes < 1024)
    return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", v, kUnits[unit]);
}

std::string formatCount(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

void checkMemoryFits(uint64_t bytes, const std::string &what,
                     const std::string &detail) {
  uint64_t available = availableMemoryBytes();
  if (bytes > available)
    fail("{} needs {} ({}); {} of memory is available", what,
         formatBytes(bytes), detail, formatBytes(available));
}

} // namespace proofc
