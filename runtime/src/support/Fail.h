//===- Fail.h - Throw a proofc::Error with a formatted message --*- C++ -*-===//
//
// How the runtime, the tools and the tests raise the one error type:
// proofc::fail("{}: tensor '{}' ...", path, name) formats with fmt and throws
// proofc::Error. Internal: fmt is a private, header-only dependency of the
// runtime, so the public Error.h (what an embedder catches) names only the
// exception type and includes nothing outside the standard library.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_FAIL_H
#define PROOFC_RUNTIME_FAIL_H

#include "proofc/runtime/Error.h"

#include <fmt/format.h>

#include <utility>

namespace proofc {

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args &&...args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

} // namespace proofc

#endif // PROOFC_RUNTIME_FAIL_H
