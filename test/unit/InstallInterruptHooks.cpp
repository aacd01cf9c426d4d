//===- InstallInterruptHooks.cpp - The tests run as the tools do ----------===//
//
// The tools install the tooling's interrupt hooks at start (parseCommandLine,
// support/Cancellation.h): Ctrl-C then ends the runtime's reads and writes
// with proofc::Interrupted. The in-process tests of that behaviour need the
// same, before main; CancellationTest takes them away where it checks the
// runtime without them.
//
//===----------------------------------------------------------------------===//
#include "tooling/Interrupts.h"

namespace {
const bool kInstalled = (proofc::installInterruptHooks(), true);
} // namespace
