//===- OutputFilesTest.cpp - How outputs are written (docs/outputs.md) ----===//
//
// In-process cases of the output protocol (OutputFiles.h): temporaries
// nobody can predict or plant, symlinks followed to the file they name,
// devices, FIFOs and `-` written in place and never replaced, a failure
// that leaves nothing, the free-space check, the SHA-256 that ties a report
// to its outcomes, and inputs that would block (a FIFO) refused at once.
// The end-to-end cases (signals, a file size limit, concurrent runs) are in
// OutputProcessTest.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "host/HostBackend.h"
#include "outputs/Report.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/RunControl.h"
#include "support/FileIO.h"
#include "support/OutputFiles.h"
#include "support/Sha256.h"
#include "tooling/RunSession.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace proofc;
using proofc::test::errorOf;
using proofc::test::listDir;
using proofc::test::TempDir;

namespace {

namespace fs = std::filesystem;

mode_t lmodeOf(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934c"
                           "a495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a"
                              "9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(OutputFiles, PlantedFilesAtTheOldTemporaryNameAreUntouched) {
  // Before: <path>.tmp.<pid> was opened with O_CREAT|O_TRUNC, following a
  // link planted there, so the victim was truncated and overwritten.
  TempDir dir;
  const std::string victim = dir.write("victim", "precious");
  const std::string path = dir.file("r.json");
  const std::string oldTemp = path + ".tmp." + std::to_string(::getpid());
  ASSERT_EQ(::symlink(victim.c_str(), oldTemp.c_str()), 0);
  const std::string other = dir.file("o.tsv");
  dir.write("o.tsv.tmp." + std::to_string(::getpid()), "planted");
  writeAtomically(path, "report");
  writeAtomically(other, "outcomes");
  EXPECT_EQ(readFile(victim), "precious");
  EXPECT_TRUE(S_ISLNK(lmodeOf(oldTemp)));
  EXPECT_EQ(readFile(other + ".tmp." + std::to_string(::getpid())), "planted");
  EXPECT_EQ(readFile(path), "report");
  EXPECT_EQ(readFile(other), "outcomes");
  EXPECT_EQ(listDir(dir.path()).size(), 5u); // no temporary left
}

TEST(OutputFiles, TemporaryNamesAreRandomAndExclusive) {
  TempDir dir;
  const std::string path = dir.file("r.json");
  OutputSet a, b;
  a.add(path, "a");
  b.add(path, "b");
  std::vector<std::string> names = listDir(dir.path());
  ASSERT_EQ(names.size(), 2u);
  EXPECT_NE(names[0], names[1]);
  for (const std::string &n : names) {
    EXPECT_EQ(n.rfind("r.json.tmp-", 0), 0u) << n;
    EXPECT_EQ(n.size(), std::string("r.json.tmp-").size() + 16) << n;
  }
  b.commit();
  a.commit(); // the last commit wins, whole
  EXPECT_EQ(readFile(path), "a");
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"r.json"});
}

TEST(OutputFiles, LongNamesStillGetATemporary) {
  TempDir dir;
  const std::string path = dir.file(std::string(250, 'n'));
  writeAtomically(path, "x");
  EXPECT_EQ(readFile(path), "x");
  EXPECT_EQ(listDir(dir.path()).size(), 1u);
}

TEST(OutputFiles, SymlinkDestinationReplacesItsTargetAndStaysALink) {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  const std::string target = dir.write("real/target.json", "old");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  // link2 -> link1 -> real/target.json (relative links, another directory)
  ASSERT_EQ(::symlink("real/target.json", dir.file("link1").c_str()), 0);
  ASSERT_EQ(::symlink("link1", dir.file("link2").c_str()), 0);
  writeAtomically(dir.file("link2"), "new");
  EXPECT_TRUE(S_ISLNK(lmodeOf(dir.file("link1"))));
  EXPECT_TRUE(S_ISLNK(lmodeOf(dir.file("link2"))));
  EXPECT_TRUE(S_ISREG(lmodeOf(target)));
  EXPECT_EQ(lmodeOf(target) & 0777, 0640u); // the replaced file's mode kept
  EXPECT_EQ(readFile(target), "new");
  EXPECT_EQ(listDir(dir.file("real")), std::vector<std::string>{"target.json"});
  // A dangling link: its target is created, the link kept.
  ASSERT_EQ(::symlink("real/fresh.json", dir.file("dangling").c_str()), 0);
  writeAtomically(dir.file("dangling"), "fresh");
  EXPECT_TRUE(S_ISLNK(lmodeOf(dir.file("dangling"))));
  EXPECT_EQ(readFile(dir.file("real/fresh.json")), "fresh");
  // A loop is an error naming the path.
  ASSERT_EQ(::symlink("loop", dir.file("loop").c_str()), 0);
  EXPECT_EQ(errorOf([&] { writeAtomically(dir.file("loop"), "x"); }),
            dir.file("loop") +
                ": cannot write: Too many levels of symbolic links");
}

TEST(OutputFiles, FifoDestinationWithAReaderGetsTheBytesAndStaysAFifo) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char buffer[4096];
    ssize_t n;
    while (fd >= 0 && (n = ::read(fd, buffer, sizeof buffer)) > 0)
      got.append(buffer, static_cast<size_t>(n));
    if (fd >= 0)
      ::close(fd);
  });
  const std::string bytes(200000, 'x'); // more than a pipe holds
  writeAtomically(fifo, bytes);
  reader.join();
  EXPECT_EQ(got, bytes);
  EXPECT_TRUE(S_ISFIFO(lmodeOf(fifo)));
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"pipe"});
}

TEST(OutputFiles, FifoWithoutAReaderWaitsInterruptibly) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  std::thread signaller([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGINT);
  });
  InterruptGuard guard;
  bool interrupted = false;
  try {
    writeAtomically(fifo, "never read");
  } catch (const Interrupted &e) {
    interrupted = e.signal() == SIGINT;
  }
  signaller.join();
  EXPECT_TRUE(interrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(S_ISFIFO(lmodeOf(fifo)));
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"pipe"});
}

TEST(OutputFiles, DeviceBehindALinkIsWrittenInPlaceNotReplaced) {
  // Before: the link (or, named directly, /dev/null itself) was replaced by
  // a regular file.
  TempDir dir;
  ASSERT_EQ(::symlink("/dev/null", dir.file("null.json").c_str()), 0);
  writeAtomically(dir.file("null.json"), "gone");
  EXPECT_TRUE(S_ISLNK(lmodeOf(dir.file("null.json"))));
  EXPECT_TRUE(S_ISCHR(lmodeOf("/dev/null")));
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"null.json"});
  checkWritable(dir.file("null.json")); // a stream is checked, not probed
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"null.json"});
}

TEST(OutputFiles, DashIsStandardOutput) {
  TempDir dir;
  const std::string captured = dir.file("stdout");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  std::string error = errorOf([] { writeAtomically("-", "to stdout\n"); });
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  EXPECT_EQ(error, "(no error)");
  EXPECT_EQ(readFile(captured), "to stdout\n");
  EXPECT_FALSE(fs::exists("-"));
}

TEST(OutputFiles, StdoutRedirectedToAFileIsWrittenThroughTheDescriptor) {
  // `--report /dev/stdout > out.txt`: /dev/stdout -> /proc/self/fd/1 -> a
  // regular file. Written through descriptor 1 at its offset (after what
  // the tool printed), like a shell's >&1; the file is not replaced (the
  // tool's own stdout would then write to a deleted file). Before: the
  // link itself was replaced (as root, the machine's /dev/stdout).
  TempDir dir;
  ASSERT_EQ(::symlink("/proc/self/fd/1", dir.file("stdout").c_str()), 0);
  const std::string captured = dir.file("out.txt");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  struct stat before, after;
  ::fstat(STDOUT_FILENO, &before);
  (void)!::write(STDOUT_FILENO, "summary\n", 8);
  const std::string error =
      errorOf([&] { writeAtomically(dir.file("stdout"), "report\n"); });
  ::fstat(STDOUT_FILENO, &after);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  EXPECT_EQ(error, "(no error)");
  EXPECT_EQ(readFile(captured), "summary\nreport\n");
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_TRUE(S_ISLNK(lmodeOf(dir.file("stdout"))));
  EXPECT_EQ(listDir(dir.path()),
            (std::vector<std::string>{"out.txt", "stdout"}));
}

TEST(OutputFiles, DirectoryAndEmptyPathAreErrors) {
  TempDir dir;
  EXPECT_EQ(errorOf([&] { writeAtomically(dir.path(), "x"); }),
            dir.path() + ": cannot write: is a directory");
  EXPECT_EQ(errorOf([&] { writeAtomically(dir.path() + "/", "x"); }),
            dir.path() + "/: cannot write: is a directory");
  EXPECT_EQ(errorOf([&] { writeAtomically("", "x"); }),
            "cannot write: the output path is empty");
  EXPECT_TRUE(listDir(dir.path()).empty());
}

TEST(OutputFiles, AFailedSetLeavesNothingAndKeepsThePreviousFiles) {
  TempDir dir;
  dir.write("o.tsv", "old outcomes");
  {
    OutputSet set;
    set.add(dir.file("o.tsv"), "new outcomes");
    EXPECT_EQ(errorOf([&] { set.add(dir.file("missing/r.json"), "r"); }),
              dir.file("missing/r.json") +
                  ": cannot write: No such file or directory");
  } // never committed
  EXPECT_EQ(readFile(dir.file("o.tsv")), "old outcomes");
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"o.tsv"});
}

TEST(OutputFiles, CommitRenamesInOrderTheLastAddedLast) {
  TempDir dir;
  OutputSet set;
  set.add(dir.file("o.tsv"), "outcomes");
  set.add(dir.file("r.json"), "report");
  EXPECT_FALSE(fs::exists(dir.file("o.tsv")));
  EXPECT_FALSE(fs::exists(dir.file("r.json")));
  set.commit();
  EXPECT_EQ(readFile(dir.file("o.tsv")), "outcomes");
  EXPECT_EQ(readFile(dir.file("r.json")), "report");
  EXPECT_EQ(listDir(dir.path()), (std::vector<std::string>{"o.tsv", "r.json"}));
}

TEST(FreeSpace, MoreThanTheFileSystemHasIsAnErrorBeforeTheRun) {
  TempDir dir;
  const uint64_t huge = uint64_t{1} << 62;
  EXPECT_EQ(
      errorOf([&] {
        checkFreeSpace(
            {{dir.file("o.tsv"), huge, "the outcomes of 9 candidates"}});
      })
          .rfind(dir.file("o.tsv") +
                     ": cannot write: not enough free space: the outcomes of "
                     "9 candidates need up to 4611686018427387904 bytes, its "
                     "file system has ",
                 0),
      0u);
  EXPECT_EQ(errorOf([&] {
              checkFreeSpace({{dir.file("o.tsv"), 1000, "o"},
                              {dir.file("r.json"), 1000, "r"}});
            }),
            "(no error)");
  // A stream takes no space.
  EXPECT_EQ(errorOf([&] { checkFreeSpace({{"/dev/null", huge, "x"}}); }),
            "(no error)");
  EXPECT_TRUE(listDir(dir.path()).empty());
}

TEST(FreeSpace, TheOutcomesBoundHoldsForARealRun) {
  TempDir dir;
  RunSessionOptions o = test::sessionOptions("nations", 5);
  o.outcomes = dir.file("o.tsv");
  o.report = dir.file("r.json");
  HostBackend backend(HostBackendOptions{1});
  RunSession session(test::v10Program(), backend, "cpu", o);
  RunOutput out = session.evaluate();
  std::FILE *sink = std::fopen("/dev/null", "w");
  session.writeOutputs(out, sink);
  std::fclose(sink);
  const std::string tsv = readFile(o.outcomes);
  const uint64_t bound =
      outcomesTsvBound(session.candidates(), session.dataset());
  EXPECT_GE(bound, tsv.size());
  EXPECT_LT(bound, 4 * tsv.size()); // a bound, not a guess
  // Outcomes version 3: the bound covers the query triple, the ranks, the
  // score and the list size, so it exceeds version 1's whole size (a version
  // 1 bound would not).
  ASSERT_EQ(tsv.rfind("#proofc-outcomes 3\n", 0), 0u);
  size_t v1Bytes = 0, lines = 0;
  for (size_t p = tsv.find('\n') + 1; p < tsv.size(); ++lines) {
    const size_t e = tsv.find('\n', p);
    size_t tab = p;
    for (int i = 0; i < 6; ++i)
      tab = tsv.find('\t', tab) + 1;
    v1Bytes += tab - p; // six fields, five TABs and the sixth's separator
    p = e + 1;
  }
  EXPECT_EQ(lines, session.candidates().candidates.size() + 1);
  EXPECT_GT(tsv.size(), v1Bytes + 9 * lines);
  // The report names its outcomes by their SHA-256.
  const nlohmann::json report = nlohmann::json::parse(readFile(o.report));
  EXPECT_EQ(report["outcomes"]["file"], o.outcomes);
  EXPECT_EQ(report["outcomes"]["sha256"], sha256Hex(tsv));
}

TEST(ReadFile, FifoAndSocketInputsAreRefusedAtOnce) {
  // Before: open() of a FIFO without a writer blocked forever.
  TempDir dir;
  const std::string fifo = dir.file("train.tsv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(errorOf([&] { readFile(fifo); }),
            fifo + ": cannot read: not a regular file (a FIFO)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  const std::string sock = dir.file("rules.txt");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, sock.c_str(), sock.size() + 1);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
  EXPECT_EQ(errorOf([&] { readFile(sock); }),
            sock + ": cannot read: not a regular file (a socket)");
  ::close(s);
}

TEST(ReadFile, ATerminalIsRefusedAtOnce) {
  // A terminal is a character device: a read with no input would block
  // (before, until a signal ended it). Like every device, it is refused
  // without being read (InputFile.h).
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const std::string slave = ::ptsname(master);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(errorOf([&] { readFile(slave); }),
            slave + ": cannot read: not a regular file (a character device)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ::close(master);
}

} // namespace
