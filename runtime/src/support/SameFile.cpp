//===- SameFile.cpp - Outputs that reach an input or each other -----------===//
#include "support/SameFile.h"

#include "proofc/runtime/Error.h"
#include "support/Fail.h"
#include "support/OutputFiles.h"

#include <optional>

#include <sys/stat.h>
#include <unistd.h>

namespace proofc {
namespace {

/// A file: its device and inode; or, for an output not there yet, the
/// directory's and the name it would get in it.
struct FileKey {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;
  bool operator==(const FileKey &o) const {
    return dev == o.dev && ino == o.ino && name == o.name;
  }
};

/// /dev/null: a sink that any number of outputs may share.
bool isNullDevice(const struct stat &st) {
  struct stat null;
  return S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 &&
         S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev;
}

std::optional<FileKey> existing(const struct stat &st) {
  if (isNullDevice(st))
    return std::nullopt;
  return FileKey{st.st_dev, st.st_ino, ""};
}

std::optional<FileKey> keyOf(const std::string &path, bool output) {
  struct stat st;
  if (path == "-") {
    if (!output || ::fstat(STDOUT_FILENO, &st) != 0)
      return std::nullopt;
    return existing(st);
  }
  if (::stat(path.c_str(), &st) == 0) // through every link, /proc/self/fd
    return existing(st);
  if (!output)
    return std::nullopt;
  try { // not there yet: the name it would get in its real directory
    const OutputTarget t = resolveOutput(path);
    if (t.kind != OutputKind::File || ::stat(t.directory.c_str(), &st) != 0)
      return std::nullopt;
    return FileKey{st.st_dev, st.st_ino, t.name};
  } catch (const Error &) {
    return std::nullopt; // checkWritable names it
  }
}

std::string flagWords(const CommandFile &f) {
  return f.flag.empty() ? "" : " (" + f.flag + ")";
}

} // namespace

bool sameFile(const std::string &a, const std::string &b, bool aIsOutput,
              bool bIsOutput) {
  if (a.empty() || b.empty())
    return false;
  const std::optional<FileKey> ka = keyOf(a, aIsOutput),
                               kb = keyOf(b, bIsOutput);
  return ka && kb && *ka == *kb;
}

void checkOutputsApart(const std::vector<CommandFile> &outputs,
                       const std::vector<CommandFile> &inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const CommandFile &a = outputs[i];
    if (a.path.empty())
      continue;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      const CommandFile &b = outputs[j];
      if (b.path.empty())
        continue;
      if (a.path == b.path || sameFile(a.path, b.path, true, true))
        fail("{}: the {} and the {} would overwrite each other ({} and {} "
             "name the same file)",
             a.path, a.what, b.what, a.flag.empty() ? a.what : a.flag,
             b.flag.empty() ? b.what : b.flag);
    }
    for (const CommandFile &in : inputs)
      if (sameFile(a.path, in.path, true, false))
        fail("{}: the {}{} would replace the {} {}, which this command "
             "reads; write it elsewhere",
             a.path, a.what, flagWords(a), in.what, in.path);
  }
}

} // namespace proofc
