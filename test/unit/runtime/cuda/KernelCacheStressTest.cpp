//===- KernelCacheStressTest.cpp - The kernel cache across processes ------===//
//
// The disk cache as real processes use it (no GPU: the compile step is a
// callback): two processes compiling one key at once while a third reads, a
// process SIGKILLed in the middle of writing an entry or of compiling,
// damaged entries of every kind, a read-only and a full cache directory
// (compiled in memory, said once per process) and a size cap held by
// several writers. Forked children report through their exit status; the
// read-only and full cases re-execute this binary (so that the once-per-
// process notice starts unsaid) inside a private mount namespace where one
// can be had.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "cuda/KernelCache.h"
#include "proofc/runtime/Notices.h"
#include "support/FileIO.h"
#include "tooling/StderrNotices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace proofc::test {
namespace kernel_cache_stress_test {
namespace fs = std::filesystem;

KernelKey keyFor(const std::string &code) {
  return {code, {"-DPROOFC_A=6"}, "sm_90", "13.0", 13000, "0.1.0"};
}

KernelCacheOptions inDir(const std::string &dir, uint64_t maxBytes = 64 << 20) {
  KernelCacheOptions o;
  o.dir = dir;
  o.maxBytes = maxBytes;
  return o;
}

/// Deterministic, not constant: a torn or mixed entry cannot pass for it.
std::string payloadOf(size_t bytes, uint32_t seed) {
  std::string p(bytes, '\0');
  std::mt19937 rng(seed);
  for (char &c : p)
    c = static_cast<char>(rng());
  return p;
}

std::vector<std::string> tempFiles(const std::string &dir) {
  std::vector<std::string> temps;
  for (const std::string &name : listDir(dir))
    if (name.rfind(".tmp-", 0) == 0)
      temps.push_back(dir + "/" + name);
  return temps;
}

uint64_t entryBytes(const std::string &dir) {
  uint64_t total = 0;
  for (const auto &e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 6 && name.compare(name.size() - 6, 6, ".cubin") == 0)
      total += e.file_size();
  }
  return total;
}

/// A pipe whose ends close with it.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe(fds) != 0)
      throw std::runtime_error("pipe failed");
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    if (read >= 0)
      ::close(read);
    if (write >= 0)
      ::close(write);
  }
  void put(char c) const { (void)!::write(write, &c, 1); }
  /// The next byte, or 0 after `seconds` without one.
  char get(int seconds = 60) const {
    pollfd p{read, POLLIN, 0};
    char c = 0;
    if (::poll(&p, 1, seconds * 1000) == 1 && ::read(read, &c, 1) == 1)
      return c;
    return 0;
  }
};

/// Runs `body` in a forked child whose exit status is body's result (99 when
/// it throws).
pid_t forkChild(const std::function<int()> &body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = body();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    ::_exit(code);
  }
  return pid;
}

/// The child's exit code, or 1000 + the signal that ended it.
int waitChild(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid)
    return -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : -1;
}

/// Thrown by a compile callback that must not be reached.
struct NoCompile : std::exception {};

//===----------------------------------------------------------------------===//
// Two writers, one reader
//===----------------------------------------------------------------------===//

TEST(KernelCacheStress, TwoProcessesCompilingOneKeyAtOnce) {
  TempDir dir;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(round);
    const KernelKey key = keyFor("round " + std::to_string(round));
    const std::string payload = payloadOf(4 << 20, round);
    Pipe compiling, go[2], stop;
    pid_t writers[2];
    for (int w = 0; w < 2; ++w) {
      writers[w] = forkChild([&, w] {
        KernelCache cache(inDir(dir.path()));
        const std::string got = cache.get(key, [&] {
          compiling.put('c'); // both are inside compile() at once ...
          if (go[w].get() != 'g')
            throw std::runtime_error("no go");
          return payload; // ... and then both write
        });
        const KernelCacheStats s = cache.stats();
        return got == payload && s.misses == 1 && s.discarded == 0 ? 0 : 2;
      });
    }
    // A reader polls the entry meanwhile: it must only ever find nothing or
    // a whole entry.
    const pid_t reader = forkChild([&] {
      KernelCache cache(inDir(dir.path()));
      const auto until =
          std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (std::chrono::steady_clock::now() < until) {
        try {
          const std::string got =
              cache.get(key, []() -> std::string { throw NoCompile(); });
          return got == payload && cache.stats().discarded == 0 ? 0 : 2;
        } catch (const NoCompile &) {
          if (cache.stats().discarded != 0)
            return 3;
        }
      }
      return 4; // never saw the entry
    });
    ASSERT_EQ(compiling.get(), 'c');
    ASSERT_EQ(compiling.get(), 'c');
    go[0].put('g');
    go[1].put('g');
    EXPECT_EQ(waitChild(writers[0]), 0);
    EXPECT_EQ(waitChild(writers[1]), 0);
    EXPECT_EQ(waitChild(reader), 0);
  }
  std::vector<std::string> expected;
  for (int round = 0; round < 4; ++round)
    expected.push_back(kernelKeyHex(keyFor("round " + std::to_string(round))) +
                       ".cubin");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listDir(dir.path()), expected); // no temporaries left
  KernelCache later(inDir(dir.path()));
  EXPECT_EQ(
      later.get(keyFor("round 2"), []() -> std::string { throw NoCompile(); }),
      payloadOf(4 << 20, 2));
  EXPECT_EQ(later.stats().hits, 1);
}

//===----------------------------------------------------------------------===//
// Killed mid-way
//===----------------------------------------------------------------------===//

Pipe *gStuck = nullptr; ///< the killed child's "I am stuck" pipe

extern "C" void stuckInWrite(int) {
  const char c = 'w';
  (void)!::write(gStuck->write, &c, 1);
  for (;;)
    ::pause(); // frozen inside write() until SIGKILL
}

TEST(KernelCacheStress, ProcessKilledWhileWritingLeavesNoVisibleEntry) {
  TempDir dir;
  const KernelKey key = keyFor("killed");
  const std::string entry =
      KernelCache(inDir(dir.path())).entryPath(kernelKeyHex(key));
  const std::string payload = payloadOf(1 << 20, 7);
  constexpr rlim_t kWritten = 8192;
  Pipe stuck;
  gStuck = &stuck;
  // The file-size limit stops the entry's write after kWritten bytes with
  // SIGXFSZ, whose handler freezes: the process is caught in the middle of
  // writing its entry, and is then killed there.
  const pid_t child = forkChild([&] {
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = stuckInWrite;
    ::sigaction(SIGXFSZ, &action, nullptr);
    const rlimit limit{kWritten, kWritten};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    KernelCache cache(inDir(dir.path()));
    cache.get(key, [&] { return payload; });
    return 5; // the write went through: not what this test needs
  });
  ASSERT_EQ(stuck.get(), 'w') << "the child never got stuck writing";
  const std::vector<std::string> temps = tempFiles(dir.path());
  ASSERT_EQ(temps.size(), 1u);
  EXPECT_EQ(fs::file_size(temps[0]), kWritten); // half-written, right now
  EXPECT_FALSE(fs::exists(entry));
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  EXPECT_EQ(waitChild(child), 1000 + SIGKILL);
  EXPECT_FALSE(fs::exists(entry));

  // The next process misses, compiles and stores a valid entry; the dead
  // writer's temporary is not an entry and goes once it is an hour old.
  int compiles = 0;
  auto compile = [&] {
    ++compiles;
    return payload;
  };
  KernelCache next(inDir(dir.path()));
  EXPECT_EQ(next.get(key, compile), payload);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(next.stats().discarded, 0);
  EXPECT_EQ(fs::file_size(entry), 64 + payload.size());
  ASSERT_TRUE(fs::exists(temps[0]));
  fs::last_write_time(temps[0],
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  next.get(keyFor("another"), compile); // a write runs the sweep
  EXPECT_FALSE(fs::exists(temps[0]));
  EXPECT_TRUE(tempFiles(dir.path()).empty());
  KernelCache third(inDir(dir.path()));
  EXPECT_EQ(third.get(key, compile), payload);
  EXPECT_EQ(third.stats().hits, 1);
  EXPECT_EQ(compiles, 2);
}

TEST(KernelCacheStress, ProcessKilledWhileCompilingLeavesNothing) {
  TempDir dir;
  Pipe compiling;
  const pid_t child = forkChild([&] {
    KernelCache cache(inDir(dir.path()));
    cache.get(keyFor("slow"), [&]() -> std::string {
      compiling.put('c');
      for (;;)
        ::pause();
    });
    return 5;
  });
  ASSERT_EQ(compiling.get(), 'c');
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  EXPECT_EQ(waitChild(child), 1000 + SIGKILL);
  EXPECT_TRUE(listDir(dir.path()).empty());
}

//===----------------------------------------------------------------------===//
// Damaged entries
//===----------------------------------------------------------------------===//

struct Damage {
  const char *name;
  std::function<void(const std::string &path, size_t size)> apply;
};

/// Inverts every bit of the byte at `offset`.
void flipAt(const std::string &path, size_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  const char byte = static_cast<char>(f.get());
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(~byte));
}

TEST(KernelCacheStress, EveryKindOfDamagedEntryIsRebuiltByTheNextProcess) {
  const std::string payload = payloadOf(5000, 11);
  const std::vector<Damage> damages = {
      {"empty", [](const std::string &p, size_t) { fs::resize_file(p, 0); }},
      {"mid-header",
       [](const std::string &p, size_t) { fs::resize_file(p, 40); }},
      {"header only",
       [](const std::string &p, size_t) { fs::resize_file(p, 64); }},
      {"half payload",
       [](const std::string &p, size_t n) { fs::resize_file(p, n / 2); }},
      {"one byte short",
       [](const std::string &p, size_t n) { fs::resize_file(p, n - 1); }},
      {"one byte more",
       [](const std::string &p, size_t) {
         std::ofstream(p, std::ios::app | std::ios::binary).put('x');
       }},
      {"payload byte",
       [](const std::string &p, size_t n) { flipAt(p, n - 1); }},
      {"payload hash", [](const std::string &p, size_t) { flipAt(p, 24); }},
      {"payload length", [](const std::string &p, size_t) { flipAt(p, 16); }},
      {"magic", [](const std::string &p, size_t) { flipAt(p, 0); }},
      {"garbage",
       [](const std::string &p, size_t n) {
         std::ofstream(p, std::ios::trunc | std::ios::binary)
             << payloadOf(n, 99);
       }},
  };
  for (const Damage &damage : damages) {
    SCOPED_TRACE(damage.name);
    TempDir dir;
    const KernelKey key = keyFor("damaged");
    const std::string path =
        KernelCache(inDir(dir.path())).entryPath(kernelKeyHex(key));
    ASSERT_EQ(waitChild(forkChild([&] {
                KernelCache cache(inDir(dir.path()));
                return cache.get(key, [&] { return payload; }) == payload ? 0
                                                                          : 2;
              })),
              0);
    damage.apply(path, fs::file_size(path));
    // The next process discards it and rebuilds it ...
    ASSERT_EQ(waitChild(forkChild([&] {
                KernelCache cache(inDir(dir.path()));
                int compiles = 0;
                const std::string got = cache.get(key, [&] {
                  ++compiles;
                  return payload;
                });
                const KernelCacheStats s = cache.stats();
                return got == payload && compiles == 1 && s.discarded == 1 &&
                               s.hits == 0
                           ? 0
                           : 2;
              })),
              0);
    // ... and the one after that hits.
    KernelCache cache(inDir(dir.path()));
    EXPECT_EQ(cache.get(key, []() -> std::string { throw NoCompile(); }),
              payload);
    EXPECT_EQ(listDir(dir.path()),
              std::vector<std::string>{kernelKeyHex(key) + ".cubin"});
  }
}

//===----------------------------------------------------------------------===//
// Read-only and full directories: a fresh process in its own mount namespace
//===----------------------------------------------------------------------===//

constexpr const char *kScenarioEnv = "PROOFC_TEST_CACHE_SCENARIO";
constexpr const char *kScenarioDirEnv = "PROOFC_TEST_CACHE_DIR";

/// In the re-executed child: three caches (as three chunks of a run would
/// make), each asked for several keys; every payload must come back right,
/// and no temporary may be left. The parent counts the notices.
TEST(KernelCacheStressChild, DISABLED_UnwritableDirectory) {
  const char *scenario = std::getenv(kScenarioEnv);
  const char *dir = std::getenv(kScenarioDirEnv);
  if (!scenario || !dir)
    GTEST_SKIP() << "run by KernelCacheStress only";
  setNoticeHandler(printNoticeToStderr); // as the tools do
  auto check = [&](bool ok, const char *what) {
    if (!ok) {
      std::fprintf(stderr, "child check failed: %s\n", what);
      std::fflush(stderr);
      ::_exit(2);
    }
  };
  const bool full = std::string(scenario) == "full";
  int compiles = 0;
  for (int instance = 0; instance < 3; ++instance) {
    KernelCache cache(inDir(dir));
    for (int k = 0; k < 3; ++k) {
      // Full: 200 KB entries never fit (the directory holds 64 KB).
      const std::string payload =
          payloadOf(full ? 200000 : 3000, static_cast<uint32_t>(k));
      const std::string got =
          cache.get(keyFor("new " + std::to_string(k)), [&] {
            ++compiles;
            return payload;
          });
      check(got == payload, "payload");
    }
    // The entry stored before the directory became unwritable still hits.
    const std::string old =
        cache.get(keyFor("stored"), []() -> std::string { throw NoCompile(); });
    check(old == payloadOf(1000, 5), "stored entry");
  }
  check(compiles == 9, "every miss compiled in memory");
  check(tempFiles(dir).empty(), "no temporary left");
  std::fflush(stderr);
  ::_exit(0);
}

/// In a forked child before exec: a private mount namespace where `dir` is
/// made read-only (bind mount) or a 64 KB tmpfs. False when this system
/// allows neither.
bool enterScenarioNamespace(const std::string &dir, bool full,
                            const std::string &stored) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWNS) != 0) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
      return false;
    auto write = [](const char *path, const std::string &text) {
      int fd = ::open(path, O_WRONLY);
      bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) ==
                               static_cast<ssize_t>(text.size());
      if (fd >= 0)
        ::close(fd);
      return ok;
    };
    write("/proc/self/setgroups", "deny");
    if (!write("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !write("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
      return false;
  }
  // Nothing mounted here may reach the parent's namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return false;
  if (full) {
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64k") != 0)
      return false;
    std::ofstream(dir + "/" + fs::path(stored).filename().string(),
                  std::ios::binary)
        << readFile(stored);
    return true;
  }
  return ::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
         ::mount(nullptr, dir.c_str(), nullptr,
                 MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0;
}

struct ScenarioResult {
  int status = -1;
  std::string stderrText;
  std::string how; ///< how the directory was made unwritable
};

ScenarioResult runScenario(const std::string &scenario) {
  const bool full = scenario == "full";
  TempDir dir;
  // One valid entry, stored while the directory was still writable.
  std::string stored;
  {
    KernelCache cache(inDir(dir.path()));
    cache.get(keyFor("stored"), [] { return payloadOf(1000, 5); });
    stored = cache.entryPath(kernelKeyHex(keyFor("stored")));
  }
  TempDir copy; // the tmpfs hides the directory's files: they come from here
  const std::string storedCopy =
      copy.file(fs::path(stored).filename().string());
  fs::copy_file(stored, storedCopy);

  Pipe err, how;
  ScenarioResult r;
  const pid_t child = ::fork();
  if (child == 0) {
    const char *used = nullptr;
    const bool root = ::geteuid() == 0; // before a user namespace maps it
    if (enterScenarioNamespace(dir.path(), full, storedCopy)) {
      used = full ? "tmpfs of 64 KiB" : "read-only bind mount";
    } else if (!full && !root && ::chmod(dir.path().c_str(), 0555) == 0) {
      used = "chmod 0555";
    } else if (full) {
      // No mount namespace: a file-size limit makes every write fail the
      // way a full disk does (EFBIG instead of ENOSPC).
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{32768, 32768};
      if (::setrlimit(RLIMIT_FSIZE, &limit) == 0)
        used = "RLIMIT_FSIZE 32 KiB";
    }
    if (!used)
      ::_exit(77);
    (void)!::write(how.write, used, std::strlen(used));
    ::close(how.write);
    ::setenv(kScenarioEnv, scenario.c_str(), 1);
    ::setenv(kScenarioDirEnv, dir.path().c_str(), 1);
    const int devNull = ::open("/dev/null", O_WRONLY);
    ::dup2(devNull, STDOUT_FILENO);
    ::dup2(err.write, STDERR_FILENO);
    ::execl(
        "/proc/self/exe", "proofc-unittests",
        "--gtest_filter=KernelCacheStressChild.DISABLED_UnwritableDirectory",
        "--gtest_also_run_disabled_tests", static_cast<char *>(nullptr));
    ::_exit(127);
  }
  ::close(err.write);
  err.write = -1;
  ::close(how.write);
  how.write = -1;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(err.read, buffer, sizeof buffer)) > 0)
    r.stderrText.append(buffer, static_cast<size_t>(n));
  while ((n = ::read(how.read, buffer, sizeof buffer)) > 0)
    r.how.append(buffer, static_cast<size_t>(n));
  r.status = waitChild(child);
  if (!full && ::geteuid() != 0)
    ::chmod(dir.path().c_str(), 0755);
  return r;
}

int countLines(const std::string &text, const std::string &prefix) {
  int count = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    if (text.compare(pos, prefix.size(), prefix) == 0)
      ++count;
    pos = end + 1;
  }
  return count;
}

TEST(KernelCacheStress, ReadOnlyDirectoryCompilesInMemoryAndSaysSoOnce) {
  const ScenarioResult r = runScenario("read-only");
  if (r.status == 77)
    GTEST_SKIP() << "no way to make a directory read-only here";
  std::printf("[ cache    ] read-only directory by %s\n", r.how.c_str());
  EXPECT_EQ(r.status, 0) << r.stderrText;
  EXPECT_EQ(countLines(r.stderrText, "proofc: notice: "), 1) << r.stderrText;
  EXPECT_EQ(
      countLines(r.stderrText, "proofc: notice: kernel cache: cannot write "),
      1)
      << r.stderrText;
  EXPECT_NE(r.stderrText.find("compiling in memory"), std::string::npos);
}

TEST(KernelCacheStress, FullDirectoryCompilesInMemoryAndSaysSoOnce) {
  const ScenarioResult r = runScenario("full");
  if (r.status == 77)
    GTEST_SKIP() << "no way to fill a directory here";
  std::printf("[ cache    ] full directory by %s\n", r.how.c_str());
  EXPECT_EQ(r.status, 0) << r.stderrText;
  EXPECT_EQ(
      countLines(r.stderrText, "proofc: notice: kernel cache: cannot write "),
      1)
      << r.stderrText;
  EXPECT_EQ(countLines(r.stderrText, "proofc: notice: "), 1) << r.stderrText;
  const bool tmpfs = r.how.rfind("tmpfs", 0) == 0;
  EXPECT_NE(
      r.stderrText.find(tmpfs ? "No space left on device" : "File too large"),
      std::string::npos)
      << r.stderrText;
}

//===----------------------------------------------------------------------===//
// The size cap
//===----------------------------------------------------------------------===//

TEST(KernelCacheStress, CapHoldsAfterEveryWrite) {
  TempDir dir;
  constexpr uint64_t kCap = 50000;
  KernelCache cache(inDir(dir.path(), kCap));
  std::mt19937 rng(3);
  int64_t lastEvicted = 0;
  for (int i = 0; i < 60; ++i) {
    const size_t size = 1000 + rng() % 12000;
    const std::string payload = payloadOf(size, static_cast<uint32_t>(i));
    const KernelKey key = keyFor("cap " + std::to_string(i));
    EXPECT_EQ(cache.get(key, [&] { return payload; }), payload);
    EXPECT_LE(entryBytes(dir.path()), kCap) << "after write " << i;
    // The entry just written is never the one evicted.
    EXPECT_TRUE(fs::exists(cache.entryPath(kernelKeyHex(key))));
    lastEvicted = cache.stats().evicted;
  }
  EXPECT_GT(lastEvicted, 30); // the cap was binding all along
}

TEST(KernelCacheStress, CapHoldsWithThreeWritingProcesses) {
  TempDir dir;
  constexpr uint64_t kCap = 100000;
  constexpr int kProcesses = 3, kKeys = 40;
  auto keyName = [](int p, int k) {
    return "proc " + std::to_string(p) + " key " + std::to_string(k);
  };
  auto payloadFor = [](int p, int k) {
    return payloadOf(2000 + static_cast<size_t>((p * 7919 + k * 104729) % 9000),
                     static_cast<uint32_t>(p * 1000 + k));
  };
  Pipe ready, go;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p)
    children.push_back(forkChild([&, p] {
      ready.put('r');
      if (go.get() != 'g')
        return 3;
      KernelCache cache(inDir(dir.path(), kCap));
      for (int k = 0; k < kKeys; ++k)
        if (cache.get(keyFor(keyName(p, k)),
                      [&] { return payloadFor(p, k); }) != payloadFor(p, k))
          return 2;
      return cache.stats().discarded == 0 ? 0 : 4;
    }));
  for (int p = 0; p < kProcesses; ++p)
    ASSERT_EQ(ready.get(), 'r');
  for (int p = 0; p < kProcesses; ++p)
    go.put('g');
  for (pid_t child : children)
    EXPECT_EQ(waitChild(child), 0);

  EXPECT_LE(entryBytes(dir.path()), kCap);
  EXPECT_TRUE(tempFiles(dir.path()).empty());
  // Every surviving entry is whole.
  KernelCache reader(inDir(dir.path(), kCap));
  int survivors = 0;
  for (int p = 0; p < kProcesses; ++p)
    for (int k = 0; k < kKeys; ++k) {
      const KernelKey key = keyFor(keyName(p, k));
      if (!fs::exists(reader.entryPath(kernelKeyHex(key))))
        continue;
      ++survivors;
      EXPECT_EQ(reader.get(key, []() -> std::string { throw NoCompile(); }),
                payloadFor(p, k));
    }
  EXPECT_GT(survivors, 5);
  EXPECT_EQ(reader.stats().discarded, 0);
}

} // namespace kernel_cache_stress_test
} // namespace proofc::test
