//===- DirectoryLock.cpp - One process at a time in a directory -----------===//
#include "support/DirectoryLock.h"

#include "support/Fail.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

void ensureDirectory(const std::string &dir, const std::string &what) {
  namespace fs = std::filesystem;
  const std::string &name = dir; // as given on the command line
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(dir, ec);
  if (fs::is_symlink(link) && !fs::exists(fs::status(dir, ec))) {
    std::error_code readEc;
    const fs::path target = fs::read_symlink(dir, readEc);
    fail("{}: the {} is a symbolic link to {}, which does not exist; make "
         "that directory, or give another path",
         name, what, target.string());
  }
  if (!fs::exists(fs::status(dir, ec))) {
    if (!fs::create_directory(dir, ec) && ec && !fs::is_directory(dir))
      fail("{}: cannot create the {} directory: {}", name, what, ec.message());
  } else if (!fs::is_directory(dir, ec)) {
    fail("{}: the {} is not a directory", name, what);
  }
}

DirectoryLock::DirectoryLock(const std::string &dir, const std::string &what) {
  const std::string path = dir + "/" + kDirectoryLockName;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    fail("{}: cannot make the {}'s lock file: {}", path, what,
         std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char text[32] = {};
    const ssize_t got = ::pread(fd_, text, sizeof text - 1, 0);
    ::close(fd_);
    fd_ = -1;
    // A file system without flock() (some FUSE and network ones): the
    // directory is used unlocked, as OutputSet's commits are there.
    if (err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL)
      return;
    if (err != EWOULDBLOCK)
      fail("{}: cannot lock the {}: {}", path, what, std::strerror(err));
    long long pid = 0;
    const bool known = got > 0 && std::sscanf(text, "%lld", &pid) == 1;
    fail("{}: the {} is in use by {} (it holds {}); wait for it to end, or "
         "give another directory",
         dir, what,
         known ? "process " + std::to_string(pid)
               : std::string("another process"),
         path);
  }
  // Ours: say who holds it.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) !=
                                      static_cast<ssize_t>(pid.size())) {
    // The lock holds without the pid; a second process names no pid.
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the lock; the file stays (harmless)
}

} // namespace proofc
