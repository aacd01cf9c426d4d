//===- DirectoryLock.h - One process at a time in a directory ---*- C++ -*-===//
//
// A checkpoint directory (Checkpoint.h) is written by the run that uses it:
// a second process on the same directory would remove the first one's
// temporaries as leftovers of a killed run, and the two would record the
// same ranges at once (before: `manifest.json: cannot write (rename): No
// such file or directory`). The process that uses a directory holds an
// exclusive flock() on `<dir>/lock` (created, never a link followed), which
// holds its pid; the lock ends with the process however it ends (kill -9
// included), so a stale lock file never blocks a resume. A second process
// is refused at once, naming the directory and the holder's pid. On a file
// system without flock() the directory is used unlocked (docs/errors.md,
// "Remaining limits").
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_DIRECTORYLOCK_H
#define PROOFC_RUNTIME_DIRECTORYLOCK_H

#include <string>

namespace proofc {

/// The lock file's name in a locked directory.
inline constexpr const char *kDirectoryLockName = "lock";

/// Makes `dir` when it is missing (its parent must exist). Throws
/// proofc::Error("<dir>: the <what> is not a directory"), ("<dir>: the
/// <what> is a symbolic link to <target>, which does not exist; ...") or
/// ("<dir>: cannot create the <what> directory: ..."), `what` being e.g.
/// "checkpoint".
void ensureDirectory(const std::string &dir, const std::string &what);

/// An exclusive lock of an existing directory, held while it lives.
class DirectoryLock {
public:
  /// Throws proofc::Error("<dir>: the <what> is in use by process <pid>
  /// (it holds <dir>/lock); ...") when another process holds it, or names
  /// why the lock file cannot be made.
  DirectoryLock(const std::string &dir, const std::string &what);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;

private:
  int fd_ = -1;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_DIRECTORYLOCK_H
