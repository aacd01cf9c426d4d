//===- InterruptsTest.cpp - SIGINT/SIGTERM raise a flag, then kill --------===//
#include "tooling/Interrupts.h"
#include "proofc/runtime/RunControl.h"

#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace proofc::test {
namespace {

void (*currentHandler(int sig))(int) {
  struct sigaction now;
  ::sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

TEST(Interrupts, FirstSignalRaisesTheFlagAndHandlersAreRestored) {
  void (*const before)(int) = currentHandler(SIGINT);
  {
    InterruptGuard guard;
    EXPECT_NE(currentHandler(SIGINT), before);
    EXPECT_FALSE(InterruptGuard::flag().load());
    EXPECT_EQ(InterruptGuard::signal(), 0);
    EXPECT_NO_THROW(InterruptGuard::throwIfRaised());
    ::raise(SIGINT); // the process survives: only the flag goes up
    EXPECT_TRUE(InterruptGuard::flag().load());
    EXPECT_EQ(InterruptGuard::signal(), SIGINT);
    try {
      InterruptGuard::throwIfRaised();
      FAIL() << "no Interrupted";
    } catch (const Interrupted &e) {
      EXPECT_EQ(e.signal(), SIGINT);
      EXPECT_EQ(e.exitCode(), 130);
      EXPECT_EQ(std::string(e.what()), "interrupted by SIGINT");
    }
  }
  EXPECT_EQ(currentHandler(SIGINT), before);
  // A new guard starts with the flag down.
  InterruptGuard again;
  EXPECT_FALSE(InterruptGuard::flag().load());
  EXPECT_NO_THROW(InterruptGuard::throwIfRaised());
}

TEST(Interrupts, SigtermIsAnInterruptToo) {
  InterruptGuard guard;
  ::raise(SIGTERM);
  try {
    InterruptGuard::throwIfRaised();
    FAIL() << "no Interrupted";
  } catch (const Interrupted &e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_EQ(e.exitCode(), 143);
    EXPECT_EQ(std::string(e.what()), "interrupted by SIGTERM");
  }
}

TEST(Interrupts, NestedGuardKeepsARaisedFlag) {
  InterruptGuard outer;
  ::raise(SIGINT);
  {
    InterruptGuard inner;
    EXPECT_TRUE(InterruptGuard::flag().load());
  }
  EXPECT_TRUE(InterruptGuard::flag().load());
}

TEST(Interrupts, FlagRaisedByCodeIsASigint) {
  try {
    throwInterrupted();
  } catch (const Interrupted &e) {
    EXPECT_EQ(e.exitCode(), 130);
  }
}

/// A second Ctrl-C kills at once (a run that does not reach a check soon).
TEST(Interrupts, SecondSignalTakesTheDefaultAction) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InterruptGuard guard;
    ::raise(SIGINT);
    if (!InterruptGuard::flag().load())
      ::_exit(2);
    ::raise(SIGINT); // not survived
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status))
      << "exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

} // namespace
} // namespace proofc::test
