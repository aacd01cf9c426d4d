//===- FileIO.cpp - Whole-file reads and atomic writes --------------------===//
#include "proofc/runtime/FileIO.h"

#include "proofc/runtime/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

namespace {
struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void failTooLarge(const std::string &path, uint64_t maxBytes) {
  fail("{}: cannot read: larger than {} bytes (the input file size limit)",
       path, maxBytes);
}

/// The temporary file writeAtomically writes `path` through.
std::string temporaryFor(const std::string &path) {
  return path + ".tmp." + std::to_string(::getpid());
}

} // namespace

std::string readFile(const std::string &path, uint64_t maxBytes) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file)
    fail("{}: cannot read: {}", path, std::strerror(errno));
  struct stat st;
  if (fstat(fileno(file.get()), &st) != 0)
    fail("{}: cannot read: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    fail("{}: cannot read: is a directory", path);
  // st_size is the size of a regular file only; a device or a FIFO says 0
  // and is bounded while it is read.
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > maxBytes)
    failTooLarge(path, maxBytes);
  std::string bytes;
  if (S_ISREG(st.st_mode) && st.st_size > 0)
    bytes.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    if (got > maxBytes - bytes.size()) // a file that grew, or a stream
      failTooLarge(path, maxBytes);
    bytes.append(buffer, got);
  }
  if (std::ferror(file.get()))
    fail("{}: cannot read: {}", path, std::strerror(errno));
  return bytes;
}

void checkWritable(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    fail("{}: cannot write: is a directory", path);
  std::string temp = temporaryFor(path);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    fail("{}: cannot write: {}", path, std::strerror(errno));
  ::close(fd);
  ::unlink(temp.c_str());
}

void writeAtomically(const std::string &path, std::string_view bytes) {
  std::string temp = temporaryFor(path);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    fail("{}: cannot write: {}", path, std::strerror(errno));
  auto abandon = [&](const char *what) {
    int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    fail("{}: cannot write ({}): {}", path, what, std::strerror(err));
  };
  const char *p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      abandon("write");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    abandon("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    fail("{}: cannot write (close): {}", path, std::strerror(err));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    fail("{}: cannot write (rename): {}", path, std::strerror(err));
  }
}

} // namespace proofc
