//===- Notices.h - What the runtime tells, without printing -----*- C++ -*-===//
//
// The runtime never prints (it is embedded in other programs): things a
// user should know that are not errors -- a kernel cache that cannot store
// its entries, native conditional graph nodes falling back to emulation --
// go to a process-wide handler. The tools install one that prints to stderr;
// embedders install their own (the Python package turns them into
// warnings); with none installed, notices are not shown (they are also in
// the report: the CUDA backend's details say "(fallback)" and the cache's
// stats).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_NOTICES_H
#define PROOFC_RUNTIME_NOTICES_H

#include <functional>
#include <string>

namespace proofc {

using NoticeHandler = std::function<void(const std::string &message)>;

/// Installs `handler` for the whole process (empty: none) and returns the
/// one before. Not to be called while a notice may be delivered.
NoticeHandler setNoticeHandler(NoticeHandler handler);

/// Gives `message` (one line, no "proofc:" prefix) to the handler, if any.
/// Thread-safe; a handler is never entered by two threads at once.
void notice(const std::string &message);

} // namespace proofc

#endif // PROOFC_RUNTIME_NOTICES_H
