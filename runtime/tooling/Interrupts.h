//===- Interrupts.h - Ctrl-C and SIGTERM stop a run cleanly -----*- C++ -*-===//
//
// While an InterruptGuard lives, SIGINT and SIGTERM only raise a process-wide
// flag that RunControl::cancel points at: the backend drains its work, the
// run ends with proofc::Interrupted, and nothing is written. A second signal
// restores the default action and re-raises itself, so a second Ctrl-C ends
// a run that does not reach a check soon (e.g. one long CUDA graph launch).
// The handlers are installed without SA_RESTART: a system call blocked when
// the signal comes returns EINTR, and the code around it checks the flag.
// The previous handlers come back when the guard goes.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_INTERRUPTS_H
#define PROOFC_RUNTIME_INTERRUPTS_H

#include "support/Cancellation.h" // throwInterrupted

#include <atomic>

#include <signal.h>

namespace proofc {

class InterruptGuard {
public:
  /// Installs the handlers; the outermost guard also lowers the flag.
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard &) = delete;
  InterruptGuard &operator=(const InterruptGuard &) = delete;

  /// Raised by the handlers (lock-free, so safe to set from one).
  static const std::atomic<bool> &flag();
  /// The signal that raised the flag, 0 while it is down.
  static int signal();
  /// Throws proofc::Interrupted (RunControl.h) when the flag is raised.
  static void throwIfRaised();

private:
  struct sigaction oldInt_, oldTerm_;
};

/// Hands the runtime this process's flag and handlers (support/
/// Cancellation.h): its blocking reads and writes then end with
/// Interrupted when a signal comes, and an OutputSet installs the handlers
/// while its temporaries exist. The tools call it once at start.
void installInterruptHooks();

} // namespace proofc

#endif // PROOFC_RUNTIME_INTERRUPTS_H
