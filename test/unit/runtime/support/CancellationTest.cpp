//===- CancellationTest.cpp - The runtime installs no signal handler ------===//
//
// support/Cancellation.h: without the tooling's hooks (an embedder's
// process) an OutputSet leaves SIGINT and SIGTERM as they were and a raised
// signal is not the runtime's business; with them (the tools) the handlers
// are installed while the set lives and restored after.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "proofc/runtime/RunControl.h"
#include "support/Cancellation.h"
#include "support/OutputFiles.h"
#include "tooling/Interrupts.h"

#include <gtest/gtest.h>

#include <csignal>

using namespace proofc;
using proofc::test::TempDir;

namespace {

void (*currentHandler(int sig))(int) {
  struct sigaction now;
  ::sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

/// Takes the hooks away for one test, and puts the tools' back after.
struct NoHooks {
  NoHooks() { setInterruptHooks({}); }
  ~NoHooks() { installInterruptHooks(); }
};

} // namespace

TEST(Cancellation, WithoutHooksAnOutputSetInstallsNoHandler) {
  NoHooks none;
  TempDir dir;
  void (*before)(int) = currentHandler(SIGINT);
  {
    OutputSet set;
    set.add(dir.file("out.txt"), "bytes");
    EXPECT_EQ(currentHandler(SIGINT), before);
    EXPECT_EQ(currentHandler(SIGTERM), SIG_DFL);
    set.commit();
  }
  EXPECT_EQ(currentHandler(SIGINT), before);
  EXPECT_FALSE(interruptRaised());
  EXPECT_NO_THROW(throwIfInterrupted());
}

TEST(Cancellation, WithTheToolsHooksAnOutputSetInstallsThemWhileItLives) {
  TempDir dir;
  void (*before)(int) = currentHandler(SIGINT);
  {
    OutputSet set;
    EXPECT_NE(currentHandler(SIGINT), before);
    EXPECT_NE(currentHandler(SIGTERM), SIG_DFL);
    set.add(dir.file("out.txt"), "bytes");
    set.commit();
  }
  EXPECT_EQ(currentHandler(SIGINT), before);
}

TEST(Cancellation, ThrowInterruptedWithoutASignalIsSigint) {
  NoHooks none;
  try {
    throwInterrupted();
    FAIL() << "throwInterrupted returned";
  } catch (const Interrupted &e) {
    EXPECT_EQ(e.signal(), SIGINT);
    EXPECT_EQ(e.exitCode(), 130);
    EXPECT_STREQ(e.what(), "interrupted by SIGINT");
  }
}
