//===- InterruptProcessTest.cpp - Ctrl-C on a real process ----------------===//
//
// End to end: this test binary re-executes itself (/proc/self/exe) to run
// the helper below, a RunSession with report and outcomes paths, as a tool
// would. The parent waits until the child has finished its first candidates,
// sends SIGINT, and expects exit code 130 and no file at all in the output
// directory (not even a temporary); then a second child run completes and
// writes both files.
//
// The helper is a DISABLED_ test, so that it runs only when asked for by
// name (--gtest_also_run_disabled_tests) with its environment set.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "host/HostBackend.h"
#include "tooling/RunSession.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace proofc::test {
namespace {
namespace fs = std::filesystem;

constexpr const char *kDirEnv = "PROOFC_TEST_SESSION_DIR";
constexpr const char *kReadyEnv = "PROOFC_TEST_SESSION_READY_FD";
constexpr const char *kQueriesEnv = "PROOFC_TEST_SESSION_QUERIES";
constexpr const char *kDataEnv = "PROOFC_TEST_SESSION_DATA";

/// The child: exit 130 on Interrupted, 0 after writing both files, 1 on an
/// error. Writes one byte to the ready pipe at its first progress report.
TEST(SessionChildProcess, DISABLED_RunUntilInterrupted) {
  const char *dir = std::getenv(kDirEnv);
  const char *ready = std::getenv(kReadyEnv);
  const char *queries = std::getenv(kQueriesEnv);
  const char *data = std::getenv(kDataEnv);
  if (!dir || !ready || !queries || !data)
    GTEST_SKIP() << "run by InterruptProcess tests only";
  RunSessionOptions o;
  o.data = dataDir(data);
  o.weights = weightsFile(data);
  o.queries = std::atoll(queries);
  o.report = std::string(dir) + "/report.json";
  o.outcomes = std::string(dir) + "/outcomes.tsv";
  o.onProgress = readyOnFirstProgress(std::atoi(ready));
  exitAfterChildRun([&] {
    HostBackend backend(HostBackendOptions{1});
    RunSession session(v10Program(), backend, "cpu", o);
    RunOutput out = session.evaluate();
    session.writeOutputs(out, stdout);
  });
}

struct Child {
  pid_t pid = -1;
  int ready = -1; ///< read end of the ready pipe
};

Child startChild(const std::string &dir, const std::string &dataset,
                 int64_t queries) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw std::runtime_error("pipe failed");
  Child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    ::close(fds[0]);
    ::setenv(kDirEnv, dir.c_str(), 1);
    ::setenv(kReadyEnv, std::to_string(fds[1]).c_str(), 1);
    ::setenv(kQueriesEnv, std::to_string(queries).c_str(), 1);
    ::setenv(kDataEnv, dataset.c_str(), 1);
    const int devNull = ::open("/dev/null", O_WRONLY);
    ::dup2(devNull, STDOUT_FILENO); // gtest's chatter; errors stay on stderr
    ::execl("/proc/self/exe", "proofc-unittests",
            "--gtest_filter=SessionChildProcess.DISABLED_RunUntilInterrupted",
            "--gtest_also_run_disabled_tests", static_cast<char *>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  c.ready = fds[0];
  return c;
}

/// True when the child reported progress within `seconds`.
bool waitReady(const Child &c, int seconds) {
  pollfd p{c.ready, POLLIN, 0};
  if (::poll(&p, 1, seconds * 1000) != 1)
    return false;
  char byte = 0;
  return ::read(c.ready, &byte, 1) == 1 && byte == 'r';
}

int waitExit(Child &c) {
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  ::close(c.ready);
  return WIFEXITED(status)
             ? WEXITSTATUS(status)
             : 1000 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

TEST(InterruptProcess, SigintMidRunExits130WithNoFilesAndTheNextRunWorks) {
  TempDir dir;
  // Every kinship test query with all corruptions, one thread: about a
  // million candidates, minutes of work; the signal comes long before.
  Child child = startChild(dir.path(), "kinship", -1);
  ASSERT_TRUE(waitReady(child, 120)) << "the child never reported progress";
  ASSERT_EQ(::kill(child.pid, SIGINT), 0);
  EXPECT_EQ(waitExit(child), 130);
  EXPECT_TRUE(listDir(dir.path()).empty());

  Child second = startChild(dir.path(), "nations", 3);
  EXPECT_EQ(waitExit(second), 0);
  EXPECT_EQ(listDir(dir.path()),
            (std::vector<std::string>{"outcomes.tsv", "report.json"}));
}

TEST(InterruptProcess, SigtermExits143) {
  TempDir dir;
  Child child = startChild(dir.path(), "kinship", -1);
  ASSERT_TRUE(waitReady(child, 120));
  ASSERT_EQ(::kill(child.pid, SIGTERM), 0);
  EXPECT_EQ(waitExit(child), 143);
  EXPECT_TRUE(listDir(dir.path()).empty());
}

} // namespace
} // namespace proofc::test
