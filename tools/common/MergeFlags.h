//===- MergeFlags.h - The flags of proofc merge and proofc-merge -*- C++
//-*-===//
//
// `proofc merge PART... --report R --outcomes O [--data DIR]` and the
// runtime-only `proofc-merge` (for machines without MLIR: an MPI or GPU
// host) take the same flags, defined here once and mapped onto the
// runtime's MergeOptions (Merge.h, docs/scale-out.md).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_MERGEFLAGS_H
#define PROOFC_TOOLS_COMMON_MERGEFLAGS_H

#include "tooling/Merge.h"

namespace CLI {
class App;
} // namespace CLI

namespace proofc::cli {

/// Adds the part files (positional, one or more), --report, --outcomes and
/// --data to `command`, filling `options`.
void addMergeFlags(CLI::App &command, MergeOptions &options);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_MERGEFLAGS_H
