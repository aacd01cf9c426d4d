//===- OutputFiles.cpp - Every file a tool writes, as one commit ----------===//
#include "support/OutputFiles.h"

#include "proofc/runtime/RunControl.h"
#include "support/Cancellation.h"
#include "support/Fail.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>
#include <tuple>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace proofc {
namespace {

/// How often a wait (a FIFO without a reader, a full pipe) looks at the
/// interrupt flag: a signal ends it within this many milliseconds.
constexpr int kPollMs = 50;

[[noreturn]] void failErrno(const std::string &path, const char *what,
                            int err) {
  if (what)
    fail("{}: cannot write ({}): {}", path, what, std::strerror(err));
  fail("{}: cannot write: {}", path, std::strerror(err));
}

/// `path` split at its last '/': ("dir", "name"); "." for no directory.
std::pair<std::string, std::string> splitPath(const std::string &path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

/// 16 hex digits nobody can guess (getrandom; the kernel's CSPRNG).
std::string randomHex() {
  unsigned char bytes[8];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      fail("cannot write: no random bytes for a temporary name: {}",
           std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : bytes) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 15]);
  }
  return hex;
}

/// Creates a fresh temporary for `name` in `dirFd`: exclusively, without
/// following a link, under a random name; retried on the (astronomically
/// rare, or planted) name that exists. Returns the fd; `*temp` its name.
int createTemporary(const OutputTarget &t, int dirFd, std::string *temp) {
  // <name>.tmp-<16 hex>, the name cut so that the whole fits NAME_MAX.
  constexpr size_t kSuffix = 5 + 16;
  const std::string stem = t.name.substr(0, NAME_MAX - kSuffix);
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Only a name this call created becomes *temp: the cleanup removes it.
    const std::string name = stem + ".tmp-" + randomHex();
    const int fd =
        ::openat(dirFd, name.c_str(),
                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *temp = name;
      return fd;
    }
    if (errno != EEXIST)
      failErrno(t.path, nullptr, errno);
  }
  fail("{}: cannot write: no free temporary name in {}", t.path, t.directory);
}

/// Writes all of `bytes` to `fd`, waiting (poll) on a full pipe or device
/// and ending with Interrupted when a signal came meanwhile.
void writeAll(int fd, std::string_view bytes, const std::string &path) {
  const char *p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    throwIfInterrupted();
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN) {
        pollfd w{fd, POLLOUT, 0};
        ::poll(&w, 1, kPollMs);
        continue;
      }
      failErrno(path, "write", errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

/// Blocks `signals` in this thread while it lives.
class SignalBlock {
public:
  explicit SignalBlock(std::initializer_list<int> signals) {
    sigset_t set;
    sigemptyset(&set);
    for (int s : signals)
      sigaddset(&set, s);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalBlock() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalBlock(const SignalBlock &) = delete;
  SignalBlock &operator=(const SignalBlock &) = delete;

private:
  sigset_t old_;
};

/// The test-only pause before a commit (kCommitDelayEnv).
void testDelay() {
  const char *env = std::getenv(kCommitDelayEnv);
  if (!env || !*env)
    return;
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(std::atol(env));
  while (!interruptRaised() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

/// N when `path` is /dev/fd/N, /proc/self/fd/N or /proc/<our pid>/fd/N
/// (what /dev/stdout and /dev/stderr link to), else -1.
int ownDescriptor(const std::string &path) {
  const std::string prefixes[] = {"/dev/fd/", "/proc/self/fd/",
                                  "/proc/" + std::to_string(::getpid()) +
                                      "/fd/"};
  for (const std::string &prefix : prefixes) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix))
      continue;
    const std::string digits = path.substr(prefix.size());
    if (digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::stoi(digits);
  }
  return -1;
}

} // namespace

OutputTarget resolveOutput(const std::string &path) {
  OutputTarget t;
  t.path = path;
  if (path.empty())
    fail("cannot write: the output path is empty");
  if (path == "-") {
    t.kind = OutputKind::Descriptor;
    t.fd = STDOUT_FILENO;
    return t;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      fail("{}: cannot write: is a directory", path);
    if (!S_ISREG(st.st_mode)) {
      t.kind = OutputKind::Stream;
      return t;
    }
  } else if (errno != ENOENT) {
    failErrno(path, nullptr, errno);
  }
  // A regular file or none: follow the links to the name to replace.
  std::string real = path;
  for (int hops = 0;; ++hops) {
    if (hops > 40)
      failErrno(path, nullptr, ELOOP);
    if (const int fd = ownDescriptor(real); fd >= 0) {
      t.kind = OutputKind::Descriptor;
      t.fd = fd;
      return t;
    }
    struct stat ls;
    if (::lstat(real.c_str(), &ls) != 0) {
      if (errno != ENOENT)
        failErrno(path, nullptr, errno);
      break; // created by the rename
    }
    if (!S_ISLNK(ls.st_mode)) {
      t.replaces = true;
      t.mode = ls.st_mode & 0777;
      break;
    }
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(real.c_str(), target.data(), target.size());
    if (n < 0)
      failErrno(path, nullptr, errno);
    target.resize(static_cast<size_t>(n));
    real = !target.empty() && target[0] == '/'
               ? target
               : splitPath(real).first + "/" + target;
  }
  std::tie(t.directory, t.name) = splitPath(real);
  if (t.name.empty() || t.name == "." || t.name == "..")
    fail("{}: cannot write: is a directory", path);
  return t;
}

OutputSet::OutputSet() = default;

OutputSet::~OutputSet() {
  for (Entry &e : entries_) {
    if (e.fd >= 0)
      ::close(e.fd);
    if (e.dirFd < 0)
      continue;
    if (!e.committed && !e.temp.empty())
      ::unlinkat(e.dirFd, e.temp.c_str(), 0);
    ::close(e.dirFd);
  }
}

void OutputSet::add(const std::string &path, std::string bytes) {
  const size_t handle = open(path);
  append(handle, bytes);
  close(handle);
}

size_t OutputSet::open(const std::string &path) {
  throwIfInterrupted();
  Entry e;
  e.target = resolveOutput(path);
  if (e.target.kind != OutputKind::File) {
    entries_.push_back(std::move(e));
    return entries_.size() - 1;
  }
  e.dirFd =
      ::open(e.target.directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (e.dirFd < 0)
    failErrno(path, nullptr, errno);
  // From here the set owns the directory and (once made) the temporary:
  // its destructor removes them if this or a later step fails.
  entries_.push_back(std::move(e));
  Entry &entry = entries_.back();
  try {
    entry.fd = createTemporary(entry.target, entry.dirFd, &entry.temp);
    if (entry.target.replaces && ::fchmod(entry.fd, entry.target.mode) != 0)
      failErrno(path, "chmod", errno);
  } catch (...) {
    discard(entry);
    entries_.pop_back();
    throw;
  }
  return entries_.size() - 1;
}

void OutputSet::append(size_t handle, std::string_view bytes) {
  Entry &entry = entries_.at(handle);
  if (entry.target.kind != OutputKind::File) {
    entry.bytes.append(bytes);
    return;
  }
  if (entry.fd < 0)
    fail("{}: written after it was closed", entry.target.path);
  try {
    writeAll(entry.fd, bytes, entry.target.path);
  } catch (...) {
    discard(entry);
    throw;
  }
}

void OutputSet::close(size_t handle) {
  Entry &entry = entries_.at(handle);
  if (entry.target.kind != OutputKind::File || entry.fd < 0)
    return;
  const std::string &path = entry.target.path;
  try {
    if (::fsync(entry.fd) != 0)
      failErrno(path, "fsync", errno);
    const int fd = entry.fd;
    entry.fd = -1;
    if (::close(fd) != 0)
      failErrno(path, "close", errno);
  } catch (...) {
    discard(entry);
    throw;
  }
}

void OutputSet::discard(Entry &entry) {
  // A failed destination is removed now, so that the set never commits it
  // (and its bytes do not wait for the set's end).
  if (entry.fd >= 0)
    ::close(entry.fd);
  entry.fd = -1;
  if (entry.dirFd >= 0) {
    if (!entry.temp.empty())
      ::unlinkat(entry.dirFd, entry.temp.c_str(), 0);
    ::close(entry.dirFd);
  }
  entry.dirFd = -1;
  entry.temp.clear();
  entry.failed = true;
}

void OutputSet::writeStream(const Entry &e) {
  const std::string &path = e.target.path;
  // A reader that went away is EPIPE, not a SIGPIPE that kills the tool.
  SignalBlock noPipe{SIGPIPE};
  auto dropPendingPipe = [] {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    const timespec zero{0, 0};
    while (::sigtimedwait(&pipe, nullptr, &zero) == SIGPIPE) {
    }
  };
  if (e.target.kind == OutputKind::Descriptor) {
    std::fflush(e.target.fd == STDERR_FILENO ? stderr : stdout);
    try {
      writeAll(e.target.fd, e.bytes, path);
    } catch (...) {
      dropPendingPipe();
      throw;
    }
    return;
  }
  // Never O_CREAT or O_TRUNC: the node stays what it is. O_NONBLOCK keeps a
  // FIFO without a reader (ENXIO) from blocking the open: it is retried
  // until a reader comes or a signal does.
  int fd;
  for (;;) {
    throwIfInterrupted();
    fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0)
      break;
    if (errno == ENXIO) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      continue;
    }
    if (errno != EINTR)
      failErrno(path, nullptr, errno);
  }
  try {
    writeAll(fd, e.bytes, path);
  } catch (...) {
    ::close(fd);
    dropPendingPipe();
    throw;
  }
  if (::close(fd) != 0)
    failErrno(path, "close", errno);
}

void OutputSet::commit() {
  testDelay();
  throwIfInterrupted();
  for (const Entry &e : entries_)
    if (e.failed || e.fd >= 0)
      fail("{}: cannot commit: {}", e.target.path,
           e.failed ? "writing it failed" : "it is still open");
  // Streams first: they cannot be taken back, and one that fails stops the
  // commit before any file becomes visible.
  for (const Entry &e : entries_)
    if (e.target.kind != OutputKind::File)
      writeStream(e);

  // The destination directories, each once, locked in a fixed order.
  std::map<std::pair<dev_t, ino_t>, int> dirs;
  for (const Entry &e : entries_) {
    if (e.target.kind != OutputKind::File)
      continue;
    struct stat st;
    if (::fstat(e.dirFd, &st) != 0)
      failErrno(e.target.path, nullptr, errno);
    dirs.emplace(std::make_pair(st.st_dev, st.st_ino), e.dirFd);
  }
  struct Unlock {
    std::vector<int> fds;
    ~Unlock() {
      for (int fd : fds)
        ::flock(fd, LOCK_UN);
    }
  } locked;
  for (const auto &[key, fd] : dirs) {
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) {
        throwIfInterrupted();
        continue;
      }
      // A file system without locks (some network ones): the renames still
      // happen in order, only concurrent commits are not serialized.
      if (errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL)
        break;
      failErrno(entries_.front().target.path, "lock", errno);
    }
    locked.fds.push_back(fd);
  }
  {
    // The renames: a signal from here on waits until they are done.
    SignalBlock block{SIGINT, SIGTERM};
    throwIfInterrupted();
    for (Entry &e : entries_) {
      if (e.target.kind != OutputKind::File)
        continue;
      if (::renameat(e.dirFd, e.temp.c_str(), e.dirFd, e.target.name.c_str()) !=
          0)
        failErrno(e.target.path, "rename", errno);
      e.committed = true;
    }
    // Durable names; a file system that cannot sync a directory (EINVAL)
    // still has them.
    for (const auto &[key, fd] : dirs)
      ::fsync(fd);
  }
  throwIfInterrupted();
}

void checkFreeSpace(const std::vector<OutputSize> &outputs) {
  std::map<dev_t, uint64_t> needed;
  for (const OutputSize &o : outputs) {
    const OutputTarget t = resolveOutput(o.path);
    if (t.kind != OutputKind::File)
      continue;
    struct statvfs vfs;
    struct stat st;
    if (::statvfs(t.directory.c_str(), &vfs) != 0 ||
        ::stat(t.directory.c_str(), &st) != 0)
      failErrno(o.path, nullptr, errno);
    const uint64_t blocks = ::geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
    const uint64_t free = blocks * uint64_t{vfs.f_frsize};
    uint64_t &sum = needed[st.st_dev];
    sum += o.bytes;
    if (sum > free)
      fail("{}: cannot write: not enough free space: {} need up to {} "
           "bytes{}, its file system has {} bytes free",
           o.path, o.what, o.bytes,
           sum == o.bytes
               ? std::string()
               : " (" + std::to_string(sum) + " with the other outputs there)",
           free);
  }
}

} // namespace proofc
