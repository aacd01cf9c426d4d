//===- FileIO.cpp - Whole-file reads and atomic writes --------------------===//
#include "support/FileIO.h"

#include "proofc/runtime/RunControl.h"
#include "support/Cancellation.h"
#include "support/Fail.h"
#include "support/OutputFiles.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

namespace {

[[noreturn]] void failTooLarge(const std::string &path, uint64_t maxBytes) {
  fail("{}: cannot read: larger than {} bytes (the input file size limit)",
       path, maxBytes);
}

/// A non-regular file that readFile refuses, or nullptr.
const char *refusedKind(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return nullptr;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

std::string readFile(const std::string &path, uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO without a writer must not block (it is then
  // refused below); O_NOCTTY: a terminal never becomes ours.
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    struct stat st; // a socket cannot be opened at all (ENXIO): say why
    if (::stat(path.c_str(), &st) == 0 && refusedKind(st.st_mode))
      fail("{}: cannot read: not a regular file ({})", path,
           refusedKind(st.st_mode));
    fail("{}: cannot read: {}", path, std::strerror(err));
  }
  FdCloser closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0)
    fail("{}: cannot read: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    fail("{}: cannot read: is a directory", path);
  if (const char *kind = refusedKind(st.st_mode))
    fail("{}: cannot read: not a regular file ({})", path, kind);
  // A device reads as usual (blocking), its reads ended by a signal.
  if (!S_ISREG(st.st_mode))
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // st_size is the size of a regular file only; a device says 0 and is
  // bounded while it is read.
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > maxBytes)
    failTooLarge(path, maxBytes);
  std::string bytes;
  if (S_ISREG(st.st_mode) && st.st_size > 0)
    bytes.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0)
      break;
    if (got < 0) {
      if (errno == EINTR) {
        throwIfInterrupted();
        continue;
      }
      fail("{}: cannot read: {}", path, std::strerror(errno));
    }
    if (static_cast<uint64_t>(got) > maxBytes - bytes.size()) // grew, or a
      failTooLarge(path, maxBytes);                           // device
    bytes.append(buffer, static_cast<size_t>(got));
  }
  return bytes;
}

void checkWritable(const std::string &path) {
  const OutputTarget t = resolveOutput(path);
  if (t.kind == OutputKind::Descriptor) {
    if (::fcntl(t.fd, F_GETFL) < 0)
      fail("{}: cannot write: {}", path, std::strerror(errno));
    return;
  }
  if (t.kind == OutputKind::Stream) {
    if (::access(path.c_str(), W_OK) != 0)
      fail("{}: cannot write: {}", path, std::strerror(errno));
    return;
  }
  // Stage an empty temporary in the real directory; the set removes it.
  OutputSet probe;
  probe.add(path, std::string());
}

void writeAtomically(const std::string &path, std::string_view bytes) {
  OutputSet set;
  set.add(path, std::string(bytes));
  set.commit();
}

} // namespace proofc
