//===- RunControl.h - Progress and cancellation of a backend run -*- C++
//-*-===//
//
// What a caller hands a backend besides the inputs: a progress callback (how
// many candidates of this run have finished) and a cancellation flag (raised
// by a signal handler or another thread). Backends check the flag between
// steps (host) or graph launches (CUDA; within a launch a watcher thread
// makes the device's loop end, docs/gpu-kernels.md), drain their in-flight
// work and then throw Interrupted; their partial outcomes are never
// returned.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_RUNCONTROL_H
#define PROOFC_RUNTIME_RUNCONTROL_H

#include "proofc/runtime/Error.h"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>

namespace proofc {

/// The run was stopped on request (Ctrl-C, SIGTERM or a raised cancellation
/// flag) before it finished. No outcome, report or outcomes file exists for
/// it. A tool exits with exitCode(): 128 + the signal (130 for SIGINT).
class Interrupted : public Error {
public:
  explicit Interrupted(int signal = SIGINT);
  int signal() const { return signal_; }
  int exitCode() const { return 128 + signal_; }

private:
  int signal_;
};

struct RunControl {
  /// When non-null and true, the run stops at the backend's next check.
  const std::atomic<bool> *cancel = nullptr;
  /// Called with the number of candidates of this run finished so far
  /// (non-decreasing); never from two threads at once. May be empty.
  std::function<void(int64_t finished)> progress;

  bool cancelled() const {
    return cancel && cancel->load(std::memory_order_relaxed);
  }
  void report(int64_t finished) const {
    if (progress)
      progress(finished);
  }
};

} // namespace proofc

#endif // PROOFC_RUNTIME_RUNCONTROL_H
