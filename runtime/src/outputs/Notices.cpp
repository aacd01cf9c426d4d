//===- Notices.cpp - What the runtime tells, without printing -------------===//
#include "proofc/runtime/Notices.h"

#include <mutex>

namespace proofc {
namespace {

std::mutex &handlerMutex() {
  static std::mutex mutex;
  return mutex;
}

NoticeHandler &currentHandler() {
  static NoticeHandler handler;
  return handler;
}

} // namespace

NoticeHandler setNoticeHandler(NoticeHandler handler) {
  std::lock_guard<std::mutex> lock(handlerMutex());
  NoticeHandler before = std::move(currentHandler());
  currentHandler() = std::move(handler);
  return before;
}

void notice(const std::string &message) {
  std::lock_guard<std::mutex> lock(handlerMutex());
  if (currentHandler())
    currentHandler()(message);
}

} // namespace proofc
