//===- MemoryBudget.h - Refuse what cannot fit, up front --------*- C++ -*-===//
//
// A pool or a program too large for the machine (1 M entities x every
// corruption, S = 10^9, B = 2^31 - 1) used to end as "internal error:
// std::bad_alloc", after minutes of work or with nothing said about what
// was too large. The sizes are known before allocating: each is computed in
// overflow-checked 64-bit arithmetic and compared with the memory the system
// has available, and a size that does not fit is one error saying what was
// asked and what there is.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_MEMORYBUDGET_H
#define PROOFC_RUNTIME_MEMORYBUDGET_H

#include <cstdint>
#include <string>

namespace proofc {

/// Bytes of host memory available for new allocations: MemAvailable of
/// /proc/meminfo, else sysconf's available pages. Test-only override: the
/// environment variable PROOFC_TEST_MEMORY_BYTES (a decimal byte count)
/// replaces it, so that tests exercise the refusals without huge inputs.
uint64_t availableMemoryBytes();

/// `count` x `bytesEach`, saturated at UINT64_MAX instead of wrapping.
uint64_t saturatingBytes(uint64_t count, uint64_t bytesEach);

/// `a` + `b`, saturated at UINT64_MAX.
inline uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a + b < a ? ~uint64_t{0} : a + b;
}

/// "24.0 GiB", "512.0 MiB", "3.0 KiB", "17 B".
std::string formatBytes(uint64_t bytes);

/// "1,600,000,000".
std::string formatCount(uint64_t n);

/// Fails with "<what> needs 24.0 GiB (<detail>); 22.1 GiB of memory is
/// available" when `bytes` is more than availableMemoryBytes().
void checkMemoryFits(uint64_t bytes, const std::string &what,
                     const std::string &detail);

} // namespace proofc

#endif // PROOFC_RUNTIME_MEMORYBUDGET_H
