//===- Error.h - The runtime's one error type -------------------*- C++ -*-===//
//
// Every user-facing failure in the runtime (bad input, I/O, device errors) is a
// proofc::Error whose message is complete and names its location
// ("path:line: what"), so a tool prints it on one line and exits non-zero.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_ERROR_H
#define PROOFC_RUNTIME_ERROR_H

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace proofc {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args &&...args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

} // namespace proofc

#endif // PROOFC_RUNTIME_ERROR_H
