//===- FileIO.h - Whole-file reads and atomic writes ------------*- C++ -*-===//
//
// Every file the runtime reads is small enough to read whole, and every file it
// writes (reports, outcomes, weights) is written atomically: a temporary file
// in the same directory, then rename(), so a reader never sees half a file.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_FILEIO_H
#define PROOFC_RUNTIME_FILEIO_H

#include <string>
#include <string_view>

namespace proofc {

/// The bytes of `path`. Throws proofc::Error("<path>: cannot read: ...").
std::string readFile(const std::string &path);

/// Writes `bytes` to `<path>.tmp.<pid>` and renames it to `path`. Throws
/// proofc::Error naming `path` on any failure (and removes the temporary).
void writeAtomically(const std::string &path, std::string_view bytes);

} // namespace proofc

#endif // PROOFC_RUNTIME_FILEIO_H
