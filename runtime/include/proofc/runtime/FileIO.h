//===- FileIO.h - Whole-file reads and atomic writes ------------*- C++ -*-===//
//
// Every file the runtime reads is read whole, up to a size limit, and every
// file it writes (reports, outcomes, weights) is written atomically: a
// temporary file in the same directory, then rename(), so a reader never sees
// half a file.
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

/// The bytes of `path`. Throws proofc::Error("<path>: cannot read: ...") and,
/// past `maxBytes` (checked before reading where the size is known, else
/// while reading), proofc::Error("<path>: cannot read: larger than ...").
std::string readFile(const std::string &path,
                     uint64_t maxBytes = kMaxInputFileBytes);

/// Checks, without writing it, that writeAtomically(path, ...) can create
/// its temporary file next to `path` and that `path` is not a directory, so
/// that a tool fails before a long run rather than after it. Throws
/// proofc::Error("<path>: cannot write: ...").
void checkWritable(const std::string &path);

/// Writes `bytes` to `<path>.tmp.<pid>` and renames it to `path`. Throws
/// proofc::Error naming `path` on any failure (and removes the temporary).
void writeAtomically(const std::string &path, std::string_view bytes);

} // namespace proofc

#endif // PROOFC_RUNTIME_FILEIO_H
