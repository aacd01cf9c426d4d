//===- Cancellation.h - Interrupts seen by the runtime, not installed -*- C++
//-*-===//
//
// The runtime never installs a signal handler (Session.h). A process whose
// tools do (the tooling's InterruptGuard, runtime/tooling/Interrupts.h)
// hands the runtime its flag and its handlers through InterruptHooks, once;
// the runtime's blocking file operations (readFile, OutputSet) then check
// the flag when a system call returns EINTR, and an OutputSet holds an
// InterruptScope (the hooks' enter/leave: the handlers installed while
// temporaries exist). In an embedder's process no hooks are set: nothing is
// installed and nothing but the RunControl's own flag is checked.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CANCELLATION_H
#define PROOFC_RUNTIME_CANCELLATION_H

#include <atomic>

namespace proofc {

struct InterruptHooks {
  /// Raised by the handlers (a process-wide flag).
  const std::atomic<bool> *raised = nullptr;
  /// The signal that raised it (0 while it is down).
  const std::atomic<int> *signal = nullptr;
  /// Install and restore the handlers around a scope (nested scopes nest).
  void (*enter)() = nullptr;
  void (*leave)() = nullptr;
};

/// Sets the process's hooks (the tools, once at start; empty: none).
void setInterruptHooks(const InterruptHooks &hooks);

/// True when the hooks' flag is raised.
bool interruptRaised();
/// Throws proofc::Interrupted when the hooks' flag is raised.
void throwIfInterrupted();
/// Throws proofc::Interrupted for the signal that raised the hooks' flag,
/// SIGINT when none did (a cancellation flag raised by code).
[[noreturn]] void throwInterrupted();

/// The hooks' handlers, installed while it lives (nothing without hooks).
class InterruptScope {
public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope &) = delete;
  InterruptScope &operator=(const InterruptScope &) = delete;

private:
  void (*leave_)() = nullptr;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CANCELLATION_H
