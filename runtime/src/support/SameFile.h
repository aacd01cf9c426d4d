//===- SameFile.h - Outputs that reach an input or each other ---*- C++ -*-===//
//
// A command's outputs are checked, before anything is read at length or
// written, against each other and against the files the command reads: two
// outputs that reach one file would overwrite each other, and an output
// that reaches an input would replace it (`proofc merge --outcomes p0.part
// p0.part p1.part` destroyed its own part). "Reach" is by identity, not by
// spelling: the device and inode the path leads to through any symbolic
// link, `..`, /dev/stdout, /dev/fd/N or /proc/self/fd/N, `-` being standard
// output itself; an output that does not exist yet is the name it would
// get in its real directory (OutputFiles.h's resolveOutput).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SAMEFILE_H
#define PROOFC_RUNTIME_SAMEFILE_H

#include <string>
#include <vector>

namespace proofc {

/// A file a command reads or writes, and the words its messages use.
struct CommandFile {
  std::string path; ///< as given; empty: not used (skipped)
  std::string what; ///< "report", "outcomes", "part", "weights", ...
  std::string flag; ///< "--report", ...; empty for a positional argument
};

/// Whether `a` and `b` reach one file now (see the banner). A path that
/// cannot be looked at reaches nothing (its reader or writer names it).
bool sameFile(const std::string &a, const std::string &b, bool aIsOutput,
              bool bIsOutput);

/// Throws proofc::Error when two of `outputs` reach one file ("<a>: the
/// report and the outcomes would overwrite each other (--report and
/// --outcomes name the same file)") or an output reaches one of `inputs`
/// ("<out>: the outcomes (--outcomes) would replace the part <in>, which
/// this command reads; write it elsewhere").
void checkOutputsApart(const std::vector<CommandFile> &outputs,
                       const std::vector<CommandFile> &inputs);

} // namespace proofc

#endif // PROOFC_RUNTIME_SAMEFILE_H
