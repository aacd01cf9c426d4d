//===- Cancellation.cpp - Interrupts seen by the runtime, not installed ---===//
#include "support/Cancellation.h"

#include "proofc/runtime/RunControl.h"

#include <fmt/format.h>

#include <csignal>
#include <mutex>
#include <string>

namespace proofc {
namespace {

std::mutex gHooksMutex;
InterruptHooks gHooks;

InterruptHooks hooks() {
  std::lock_guard<std::mutex> lock(gHooksMutex);
  return gHooks;
}

} // namespace

Interrupted::Interrupted(int signal)
    : Error(fmt::format("interrupted by {}",
                        signal == SIGTERM ? "SIGTERM"
                        : signal == SIGINT
                            ? "SIGINT"
                            : "signal " + std::to_string(signal))),
      signal_(signal) {}

void setInterruptHooks(const InterruptHooks &h) {
  std::lock_guard<std::mutex> lock(gHooksMutex);
  gHooks = h;
}

bool interruptRaised() {
  const InterruptHooks h = hooks();
  return h.raised && h.raised->load();
}

void throwIfInterrupted() {
  if (interruptRaised())
    throwInterrupted();
}

void throwInterrupted() {
  const InterruptHooks h = hooks();
  const int sig = h.signal ? h.signal->load() : 0;
  throw Interrupted(sig != 0 ? sig : SIGINT);
}

InterruptScope::InterruptScope() {
  const InterruptHooks h = hooks();
  if (h.enter && h.leave) {
    h.enter();
    leave_ = h.leave;
  }
}

InterruptScope::~InterruptScope() {
  if (leave_)
    leave_();
}

} // namespace proofc
