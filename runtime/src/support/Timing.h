//===- Timing.h - The seconds the runtime's timings report ------*- C++ -*-===//
//
// Every timing a run or a Session call reports (setup, run, readback, the
// kernel cache's compile and load, the modules' JIT) is wall-clock seconds
// on the steady clock since a point the code took: one definition, so that
// they are all measured alike.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SUPPORT_TIMING_H
#define PROOFC_RUNTIME_SUPPORT_TIMING_H

#include <chrono>

namespace proofc {

using Clock = std::chrono::steady_clock;

/// Seconds from `start` to now.
inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace proofc

#endif // PROOFC_RUNTIME_SUPPORT_TIMING_H
