//===- InputFile.h - Opening a file proofc reads ----------------*- C++ -*-===//
//
// Every file proofc reads (datasets, rules, weights, bundles, programs,
// parts, proofs parts, checkpoint ranges and manifests) is opened here, so
// that what would make a read block or never end is refused at once, naming
// the path: a FIFO (open() alone would wait for a writer; it is opened with
// O_NONBLOCK and refused), a socket, a character or block device (/dev/zero
// never ends, a terminal waits for a user) and a directory. Only a regular
// file, followed through any symbolic links, is read; its identity (device,
// inode) is what SameFile.h compares with the command's outputs.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_INPUTFILE_H
#define PROOFC_RUNTIME_INPUTFILE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace proofc {

/// A regular file open for reading, closed with its scope.
class InputFile {
public:
  /// Opens `path`. Throws proofc::Error("<path>: cannot read: <why>") --
  /// "not a regular file (a FIFO)" (a socket, a character device, a block
  /// device), "is a directory", or the system's reason -- without blocking.
  explicit InputFile(const std::string &path);
  ~InputFile();
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;

  const std::string &path() const { return path_; }
  int fd() const { return fd_; }
  /// The file's size when it was opened.
  uint64_t size() const { return size_; }
  /// Up to `n` bytes at `offset` into `out` (fewer only at the end of the
  /// file); retries EINTR (proofc::Interrupted when an InterruptGuard has
  /// raised its flag). Throws proofc::Error naming the path on a failure.
  size_t readAt(uint64_t offset, char *out, size_t n) const;

private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

/// What a file that is not a regular file is, for "not a regular file (a
/// FIFO)"; nullptr for a regular file or a directory.
const char *irregularFileKind(unsigned mode);

} // namespace proofc

#endif // PROOFC_RUNTIME_INPUTFILE_H
