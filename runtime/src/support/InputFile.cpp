//===- InputFile.cpp - Opening a file proofc reads ------------------------===//
#include "support/InputFile.h"

#include "support/Cancellation.h"
#include "support/Fail.h"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

const char *irregularFileKind(unsigned mode) {
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  return nullptr;
}

InputFile::InputFile(const std::string &path) : path_(path) {
  // O_NONBLOCK: opening a FIFO without a writer must not block (it is then
  // refused below); O_NOCTTY: a terminal never becomes ours.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    struct stat st; // a socket cannot be opened at all (ENXIO): say why
    if (::stat(path.c_str(), &st) == 0 && irregularFileKind(st.st_mode))
      fail("{}: cannot read: not a regular file ({})", path,
           irregularFileKind(st.st_mode));
    fail("{}: cannot read: {}", path, std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fail("{}: cannot read: {}", path, std::strerror(err));
  }
  const char *kind = irregularFileKind(st.st_mode);
  if (S_ISDIR(st.st_mode) || kind) {
    ::close(fd_);
    if (kind)
      fail("{}: cannot read: not a regular file ({})", path, kind);
    fail("{}: cannot read: is a directory", path);
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() { ::close(fd_); }

size_t InputFile::readAt(uint64_t offset, char *out, size_t n) const {
  // An offset past what off_t holds is past the end of any file.
  if (offset > static_cast<uint64_t>(INT64_MAX) - n)
    return 0;
  size_t got = 0;
  while (got < n) {
    const ssize_t r =
        ::pread(fd_, out + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) {
      throwIfInterrupted();
      continue;
    }
    if (r < 0)
      fail("{}: cannot read: {}", path_, std::strerror(errno));
    if (r == 0)
      break;
    got += static_cast<size_t>(r);
  }
  return got;
}

} // namespace proofc
