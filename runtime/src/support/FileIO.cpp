//===- FileIO.cpp - Whole-file reads and atomic writes --------------------===//
#include "support/FileIO.h"

#include "proofc/runtime/RunControl.h"
#include "support/Cancellation.h"
#include "support/Fail.h"
#include "support/InputFile.h"
#include "support/OutputFiles.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

namespace {

[[noreturn]] void failTooLarge(const std::string &path, uint64_t maxBytes) {
  fail("{}: cannot read: larger than {} bytes (the input file size limit)",
       path, maxBytes);
}

} // namespace

std::string readFile(const std::string &path, uint64_t maxBytes) {
  // A regular file only (InputFile.h): a FIFO, a socket, a device or a
  // directory is refused at once.
  const InputFile file(path);
  if (file.size() > maxBytes)
    failTooLarge(path, maxBytes);
  std::string bytes(static_cast<size_t>(file.size()), '\0');
  bytes.resize(file.readAt(0, bytes.data(), bytes.size()));
  // A file that grew since it was opened: read on, bounded.
  char buffer[1 << 16];
  for (;;) {
    const size_t got = file.readAt(bytes.size(), buffer, sizeof buffer);
    if (got == 0)
      break;
    if (got > maxBytes - bytes.size())
      failTooLarge(path, maxBytes);
    bytes.append(buffer, got);
  }
  return bytes;
}

void checkWritable(const std::string &path) {
  const OutputTarget t = resolveOutput(path);
  if (t.kind == OutputKind::Descriptor) {
    if (::fcntl(t.fd, F_GETFL) < 0)
      fail("{}: cannot write: {}", path, std::strerror(errno));
    return;
  }
  if (t.kind == OutputKind::Stream) {
    if (::access(path.c_str(), W_OK) != 0)
      fail("{}: cannot write: {}", path, std::strerror(errno));
    return;
  }
  // Stage an empty temporary in the real directory; the set removes it.
  OutputSet probe;
  probe.add(path, std::string());
}

void writeAtomically(const std::string &path, std::string_view bytes) {
  OutputSet set;
  set.add(path, std::string(bytes));
  set.commit();
}

} // namespace proofc
