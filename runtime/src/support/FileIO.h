//===- FileIO.h - Whole-file reads and atomic writes ------------*- C++ -*-===//
//
// Every file the runtime reads is read whole, up to a size limit, and only
// from a regular file (InputFile.h: never a FIFO, a socket, a device or a
// directory, whose open or read could block or never end); every
// file it writes (reports, outcomes, weights, bundles) goes through one
// OutputSet (OutputFiles.h): an exclusive temporary with an unpredictable
// name, then rename(), so a reader never sees half a file.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_FILEIO_H
#define PROOFC_RUNTIME_FILEIO_H

#include <cstdint>
#include <string>
#include <string_view>

namespace proofc {

/// Largest input file read: 2 GiB, 100 times the largest file of the shared
/// datasets (fb15k-237's train.tsv, 21 MB) and far past what the KB's int32
/// indices (R * E < 2^31) let a dataset or its weights reach. It keeps
/// /dev/zero, an endless FIFO or a wrong huge file from exhausting memory.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{2} << 30;

/// The bytes of `path`, a regular file (InputFile.h: a FIFO, a socket, a
/// device or a directory is refused at once, without blocking). Throws
/// proofc::Error("<path>: cannot read: ...") -- "not a regular file (a
/// FIFO)" (a socket, a character device, a block device), "is a directory"
/// -- and, past `maxBytes` (checked before reading, and again while reading
/// a file that grows), proofc::Error("<path>: cannot read: larger than
/// ..."). A read that a signal interrupts while an InterruptGuard has raised
/// its flag ends with proofc::Interrupted.
std::string readFile(const std::string &path,
                     uint64_t maxBytes = kMaxInputFileBytes);

/// Checks, without writing it, that writeAtomically(path, ...) can write
/// `path`: that it is not empty or a directory and that a temporary can be
/// created (and is removed again) in its real directory, or, for a stream
/// (a device, a FIFO, `-`), that it is writable -- so that a tool fails
/// before a long run rather than after it. Throws proofc::Error("<path>:
/// cannot write: ...").
void checkWritable(const std::string &path);

/// A one-destination OutputSet: `bytes` replace `path` atomically (or are
/// written in place to a stream). Throws proofc::Error naming `path` on any
/// failure, with nothing left behind, or proofc::Interrupted.
void writeAtomically(const std::string &path, std::string_view bytes);

} // namespace proofc

#endif // PROOFC_RUNTIME_FILEIO_H
