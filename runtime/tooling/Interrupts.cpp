//===- Interrupts.cpp - Ctrl-C and SIGTERM stop a run cleanly -------------===//
#include "tooling/Interrupts.h"

#include "proofc/runtime/RunControl.h"
#include "support/Cancellation.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace proofc {
namespace {

static_assert(std::atomic<bool>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free,
              "the interrupt flag is set from a signal handler");

std::atomic<bool> gRaised{false};
std::atomic<int> gSignal{0};
std::atomic<int> gDepth{0}; ///< live guards

extern "C" void onInterrupt(int sig) {
  if (gRaised.load()) {
    // Second signal: the user insists. Default action, delivered when this
    // handler returns (the signal is blocked while it runs).
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    return;
  }
  gSignal.store(sig);
  gRaised.store(true);
}

} // namespace

InterruptGuard::InterruptGuard() {
  if (gDepth.fetch_add(1) == 0) {
    gRaised.store(false);
    gSignal.store(0);
  }
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking system call (a read from a terminal, a wait)
  // returns EINTR, so the code in it sees the flag at once instead of
  // blocking on after the signal (readFile, OutputSet).
  action.sa_flags = 0;
  ::sigaction(SIGINT, &action, &oldInt_);
  ::sigaction(SIGTERM, &action, &oldTerm_);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &oldInt_, nullptr);
  ::sigaction(SIGTERM, &oldTerm_, nullptr);
  gDepth.fetch_sub(1);
}

const std::atomic<bool> &InterruptGuard::flag() { return gRaised; }

int InterruptGuard::signal() { return gSignal.load(); }

void InterruptGuard::throwIfRaised() {
  if (gRaised.load())
    throwInterrupted();
}

namespace {

/// The hooks' scopes (OutputSet's InterruptScope): a guard each, nested.
std::mutex gScopesMutex;
std::vector<std::unique_ptr<InterruptGuard>> gScopes;

void enterScope() {
  std::lock_guard<std::mutex> lock(gScopesMutex);
  gScopes.push_back(std::make_unique<InterruptGuard>());
}

void leaveScope() {
  std::lock_guard<std::mutex> lock(gScopesMutex);
  if (!gScopes.empty())
    gScopes.pop_back();
}

} // namespace

void installInterruptHooks() {
  InterruptHooks hooks;
  hooks.raised = &gRaised;
  hooks.signal = &gSignal;
  hooks.enter = enterScope;
  hooks.leave = leaveScope;
  setInterruptHooks(hooks);
}

} // namespace proofc
