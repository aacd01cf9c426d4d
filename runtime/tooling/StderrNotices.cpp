//===- StderrNotices.cpp - The tools' notice handler ----------------------===//
#include "tooling/StderrNotices.h"

#include <cstdio>

namespace proofc {

void printNoticeToStderr(const std::string &message) {
  std::fprintf(stderr, "proofc: notice: %s\n", message.c_str());
  std::fflush(stderr);
}

} // namespace proofc
