//===- OutputProcessTest.cpp - Outputs of the real proofc-run -------------===//
//
// End to end, on the proofc-run binary (a reference bundle, the CPU backend,
// nations): inputs that would block (a FIFO as train.tsv or rules.txt) fail
// at once; a FIFO report without a reader and the final write itself (held
// open by the test-only PROOFC_TEST_COMMIT_DELAY_MS) end on SIGINT/SIGTERM
// with 130/143 and nothing written; a file size limit (RLIMIT_FSIZE, EFBIG
// like a full disk) keeps the previous report and outcomes; concurrent runs
// on the same paths never leave a report beside another run's outcomes;
// `--report -` is standard output. docs/outputs.md has the protocol.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "ToolRunner.h"
#include "runtime/cuda/TestBundle.h"

#include "support/FileIO.h"
#include "support/OutputFiles.h"
#include "support/Sha256.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef PROOFC_RUN_BINARY

namespace proofc::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Spawn {
  std::vector<std::string> args; ///< after the binary
  std::vector<std::pair<std::string, std::string>> env;
  rlim_t fileSizeLimit = RLIM_INFINITY;
  std::string dir; ///< working directory; stdout and stderr files in it
  std::string tag = "run";
};

/// Starts proofc-run as `s` says; stdout/stderr go to <dir>/<tag>.out/.err.
pid_t start(const Spawn &s) {
  const std::string out = s.dir + "/../" + s.tag + ".out";
  const std::string err = s.dir + "/../" + s.tag + ".err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto &[key, value] : s.env)
      ::setenv(key.c_str(), value.c_str(), 1);
    if (s.fileSizeLimit != RLIM_INFINITY) {
      ::signal(SIGXFSZ, SIG_IGN); // a write past the limit is EFBIG
      const rlimit limit{s.fileSizeLimit, s.fileSizeLimit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    if (::chdir(s.dir.c_str()) != 0)
      ::_exit(126);
    std::vector<char *> argv{const_cast<char *>(PROOFC_RUN_BINARY)};
    for (const std::string &a : s.args)
      argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(PROOFC_RUN_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

/// The exit code, 1000 + the signal when killed, -1 (and killed) past
/// `seconds`.
int finish(pid_t pid, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status)
             ? WEXITSTATUS(status)
             : 1000 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/// Names in `dir` that hold `part`.
size_t countNamesWith(const std::string &dir, const std::string &part) {
  size_t n = 0;
  for (const std::string &name : listDir(dir))
    n += name.find(part) != std::string::npos;
  return n;
}

/// Waits until `dir` has `count` temporaries (".tmp-"): the run has staged
/// its outputs and waits in (or before) the commit.
bool waitForTemporaries(const std::string &dir, size_t count, int seconds) {
  const auto until = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < until) {
    if (countNamesWith(dir, ".tmp-") >= count)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class OutputProcess : public ::testing::Test {
protected:
  void SetUp() override {
    fs::create_directory(root_.file("out"));
    out_ = root_.file("out");
    bundle_ = root_.file("v10.pcb");
    writeBundle(bundle_, makeTestBundle(v10Program()));
  }
  std::vector<std::string> args(int queries,
                                const std::string &data = "") const {
    return {bundle_,
            "--data",
            data.empty() ? dataDir("nations") : data,
            "--weights",
            weightsFile("nations"),
            "--device",
            "cpu",
            "--threads",
            "1",
            "--quiet",
            "--queries",
            std::to_string(queries)};
  }
  Spawn spawn(std::vector<std::string> a) const {
    Spawn s;
    s.args = std::move(a);
    s.dir = out_;
    return s;
  }
  std::string stderrOf(const std::string &tag = "run") const {
    return readFile(root_.file(tag + ".err"));
  }
  std::string stdoutOf(const std::string &tag = "run") const {
    return readFile(root_.file(tag + ".out"));
  }

  TempDir root_;
  std::string out_, bundle_;
};

TEST_F(OutputProcess, EmptyPathsNameTheFlag) {
  // Before: `: cannot read: No such file or directory`, and an empty
  // --report or --outcomes was silently no file.
  const std::string rest = " --data " + dataDir("nations") + " --weights " +
                           weightsFile("nations") + " --queries 1";
  const std::string tail = ": empty path (an empty argument names no file)\n";
  ToolResult r = runProofcRun("''" + rest);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "proofc-run: error: bundle" + tail);
  for (const char *flag : {"--weights", "--data", "--report", "--outcomes"}) {
    r = runProofcRun(bundle_ + rest + " " + flag + " ''");
    EXPECT_EQ(r.status, 1) << flag;
    EXPECT_EQ(r.output, "proofc-run: error: " + std::string(flag) + tail);
  }
}

TEST_F(OutputProcess, FifoAsTrainTsvOrRulesFailsAtOnce) {
  // Before: open() blocked forever, and SIGINT/SIGTERM were ignored there.
  for (const std::string name : {"train.tsv", "rules.txt"}) {
    const std::string data = root_.file("data-" + name);
    fs::create_directory(data);
    for (const char *f : {"train.tsv", "valid.tsv", "test.tsv", "rules.txt"})
      if (name != f)
        fs::copy_file(dataDir("nations") + "/" + f, data + "/" + f);
    ASSERT_EQ(::mkfifo((data + "/" + name).c_str(), 0600), 0);
    const auto begin = Clock::now();
    EXPECT_EQ(finish(start(spawn(args(2, data))), 20), 1) << name;
    EXPECT_LT(Clock::now() - begin, std::chrono::seconds(10));
    EXPECT_EQ(stderrOf(), "proofc-run: error: " + data + "/" + name +
                              ": cannot read: not a regular file (a FIFO)\n");
  }
}

TEST_F(OutputProcess, FifoReportWithoutAReaderEndsOnSigint) {
  const std::string fifo = out_ + "/r.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> a = args(3);
  a.insert(a.end(), {"--report", fifo, "--outcomes", out_ + "/o.tsv"});
  const pid_t pid = start(spawn(a));
  // The outcomes are staged, then the commit waits for the FIFO's reader.
  ASSERT_TRUE(waitForTemporaries(out_, 1, 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto begin = Clock::now();
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  EXPECT_EQ(finish(pid, 10), 130);
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(2));
  EXPECT_EQ(stderrOf(), "proofc-run: interrupted by SIGINT\n");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(listDir(out_), std::vector<std::string>{"r.json"});
}

TEST_F(OutputProcess, SignalDuringTheFinalWriteWritesNothing) {
  // Before: the signal was ignored and the files written (exit 0).
  for (const auto &[sig, code] :
       {std::pair{SIGTERM, 143}, std::pair{SIGINT, 130}}) {
    const std::string report = out_ + "/r.json", outcomes = out_ + "/o.tsv";
    std::ofstream(report) << "old report";
    std::ofstream(outcomes) << "old outcomes";
    std::vector<std::string> a = args(3);
    a.insert(a.end(), {"--report", report, "--outcomes", outcomes});
    Spawn s = spawn(a);
    s.env = {{kCommitDelayEnv, "60000"}};
    const pid_t pid = start(s);
    ASSERT_TRUE(waitForTemporaries(out_, 2, 60)); // both complete
    ASSERT_EQ(::kill(pid, sig), 0);
    EXPECT_EQ(finish(pid, 10), code);
    EXPECT_EQ(readFile(report), "old report");
    EXPECT_EQ(readFile(outcomes), "old outcomes");
    EXPECT_EQ(listDir(out_), (std::vector<std::string>{"o.tsv", "r.json"}));
  }
}

TEST_F(OutputProcess, AFailedWriteKeepsThePreviousReportAndOutcomes) {
  // A file size limit fails the write with EFBIG as a full disk would with
  // ENOSPC. Before: the new report was already in place beside the old
  // outcomes, and a temporary was left.
  const std::string report = out_ + "/r.json", outcomes = out_ + "/o.tsv";
  std::ofstream(report) << "old report";
  std::ofstream(outcomes) << "old outcomes";
  std::vector<std::string> a = args(20); // outcomes ~ 14 kB, report ~ 3 kB
  a.insert(a.end(), {"--report", report, "--outcomes", outcomes});
  Spawn s = spawn(a);
  s.fileSizeLimit = 8192;
  EXPECT_EQ(finish(start(s), 60), 1);
  EXPECT_EQ(stderrOf(), "proofc-run: error: " + outcomes +
                            ": cannot write (write): File too large\n");
  EXPECT_EQ(readFile(report), "old report");
  EXPECT_EQ(readFile(outcomes), "old outcomes");
  EXPECT_EQ(listDir(out_), (std::vector<std::string>{"o.tsv", "r.json"}));
}

TEST_F(OutputProcess, ConcurrentRunsNeverMixReportAndOutcomes) {
  const std::string report = out_ + "/r.json", outcomes = out_ + "/o.tsv";
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<pid_t> pids;
    for (int run = 1; run <= 4; ++run) { // 1..4 queries: four results
      std::vector<std::string> a = args(run);
      a.insert(a.end(), {"--report", report, "--outcomes", outcomes});
      Spawn s = spawn(a);
      s.tag = "run" + std::to_string(run);
      s.env = {{kCommitDelayEnv, "200"}}; // commit at about the same time
      pids.push_back(start(s));
    }
    for (pid_t pid : pids)
      EXPECT_EQ(finish(pid, 120), 0);
    const nlohmann::json j = nlohmann::json::parse(readFile(report));
    EXPECT_EQ(j["outcomes"]["sha256"], sha256Hex(readFile(outcomes)))
        << "trial " << trial << ": a report beside another run's outcomes";
    EXPECT_EQ(listDir(out_), (std::vector<std::string>{"o.tsv", "r.json"}));
  }
}

TEST_F(OutputProcess, DashReportIsStandardOutput) {
  std::vector<std::string> a = args(2);
  a.insert(a.end(), {"--report", "-", "--outcomes", out_ + "/o.tsv"});
  EXPECT_EQ(finish(start(spawn(a)), 60), 0) << stderrOf();
  const nlohmann::json j = nlohmann::json::parse(stdoutOf()); // JSON only
  EXPECT_EQ(j["outcomes"]["sha256"], sha256Hex(readFile(out_ + "/o.tsv")));
  EXPECT_NE(stderrOf().find("report    -\n"), std::string::npos); // the text
  EXPECT_EQ(listDir(out_), std::vector<std::string>{"o.tsv"});    // no file "-"
}

} // namespace
} // namespace proofc::test

#endif // PROOFC_RUN_BINARY
