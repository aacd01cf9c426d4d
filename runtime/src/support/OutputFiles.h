//===- OutputFiles.h - Every file a tool writes, as one commit --*- C++ -*-===//
//
// The one way the runtime and the tools write an output (the report, the
// outcomes, init-weights -o, compile -o): an OutputSet takes the bytes of
// one or more destinations and makes them visible together, or not at all.
// docs/outputs.md has the protocol; in short:
//
// - A destination that is missing or a regular file -- after following any
//   chain of symbolic links: the link stays, its target is replaced -- is
//   written to a temporary in the target's directory, created exclusively
//   (O_CREAT|O_EXCL|O_NOFOLLOW) under an unpredictable name
//   (`<name>.tmp-<16 random hex digits>`), fsync()ed, and renamed over the
//   target at commit. A planted file or link can never be written through.
// - A destination that exists and is not a regular file (a character or
//   block device, a FIFO, a terminal, /dev/stdout) is written in place,
//   never replaced; `-` is standard output, and so is /dev/stdout while it
//   is a regular file (written through the descriptor, not replaced). Such a
//   stream cannot be taken back, so it is written at commit, before any rename.
// - commit() renames in the order the destinations were added (the run
//   adds the outcomes first and the report last), holding flock() on every
//   destination directory (taken in (st_dev, st_ino) order) across the
//   renames, with SIGINT/SIGTERM blocked for those microseconds; the
//   directories are fsync()ed. Concurrent commits to the same paths thus
//   never interleave.
// - Any failure, or a SIGINT/SIGTERM before the renames, removes every
//   temporary: nothing becomes visible. A signal is proofc::Interrupted
//   (exit 130/143); one that arrives during the renames is honoured right
//   after them (the outputs are then complete).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_OUTPUTFILES_H
#define PROOFC_RUNTIME_OUTPUTFILES_H

#include "support/Cancellation.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

/// How a destination is written, decided from what is there now.
enum class OutputKind {
  File,   ///< missing or a regular file: replaced atomically (rename)
  Stream, ///< exists and is not a regular file: written in place
  /// "-" (standard output), or a path that names one of this process's
  /// open descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) while it is
  /// a regular file (`> out.txt`): written to the descriptor itself, at its
  /// offset, as a shell's `>&N` would, never by replacing the file.
  Descriptor,
};

struct OutputTarget {
  std::string path; ///< as given; every message names it
  OutputKind kind = OutputKind::File;
  /// File: the real destination after every symbolic link, as a directory
  /// and a name in it.
  std::string directory, name;
  /// File: an existing regular file is replaced; its permission bits are
  /// kept (a new file gets 0666 & ~umask).
  bool replaces = false;
  unsigned mode = 0;
  int fd = -1; ///< Descriptor: the descriptor
};

/// Resolves `path` (see the banner). Throws proofc::Error("<path>: cannot
/// write: ...") for an empty path, a directory, a symlink loop, or a path
/// that cannot be looked at.
OutputTarget resolveOutput(const std::string &path);

/// The environment variable that makes OutputSet::commit() wait this many
/// milliseconds (or until a signal) before it writes anything: test-only,
/// so that a test can signal a process whose temporaries are complete.
inline constexpr const char *kCommitDelayEnv = "PROOFC_TEST_COMMIT_DELAY_MS";

class OutputSet {
public:
  /// Installs the process's interrupt handlers for its lifetime, when it
  /// has any (InterruptScope: the tools' InterruptGuard).
  OutputSet();
  /// Removes every temporary not committed.
  ~OutputSet();
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;

  /// Stages `bytes` for `path`: a file destination's temporary is written
  /// and fsync()ed now; a stream's bytes are kept for commit(). Throws
  /// proofc::Error naming `path` (ENOSPC, EFBIG, ...) or Interrupted.
  void add(const std::string &path, std::string bytes);

  /// The same in pieces, for outputs too large to hold (a streamed outcomes
  /// file): open() makes the temporary (a stream's bytes are still kept for
  /// commit(), which cannot be taken back), append() writes to it, close()
  /// fsync()s it; commit() refuses a destination still open. A failed
  /// append() or close() removes the temporary. Handles count from 0 in the
  /// order of add() and open() calls.
  size_t open(const std::string &path);
  void append(size_t handle, std::string_view bytes);
  void close(size_t handle);

  /// Makes every staged destination visible (see the banner). Throws
  /// proofc::Error naming the path, or Interrupted.
  void commit();

private:
  struct Entry {
    OutputTarget target;
    int dirFd = -1;    ///< File: the destination's directory
    std::string temp;  ///< File: the temporary's name in it
    std::string bytes; ///< Stream, Descriptor: written at commit
    int fd = -1;       ///< File: the temporary while open
    bool committed = false;
    bool failed = false; ///< its temporary was removed after an error
  };
  void writeStream(const Entry &e);
  void discard(Entry &entry);

  InterruptScope interrupts_;
  std::vector<Entry> entries_;
};

/// One destination and how large it will be.
struct OutputSize {
  std::string path;
  uint64_t bytes = 0;
  std::string what; ///< e.g. "the outcomes of 1234 candidates"
};

/// Throws proofc::Error("<path>: cannot write: not enough free space: ...")
/// when the file destinations, summed per file system, need more than it
/// has free (statvfs; root counts the reserved blocks). Streams need none.
void checkFreeSpace(const std::vector<OutputSize> &outputs);

} // namespace proofc

#endif // PROOFC_RUNTIME_OUTPUTFILES_H
