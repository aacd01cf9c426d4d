//===- StderrNotices.h - The tools' notice handler --------------*- C++ -*-===//
//
// The runtime never prints (proofc/runtime/Notices.h); the tools install
// this handler, which does, so the printing lives here with the tooling.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLING_STDERRNOTICES_H
#define PROOFC_TOOLING_STDERRNOTICES_H

#include <string>

namespace proofc {

/// "proofc: notice: <message>" on stderr.
void printNoticeToStderr(const std::string &message);

} // namespace proofc

#endif // PROOFC_TOOLING_STDERRNOTICES_H
