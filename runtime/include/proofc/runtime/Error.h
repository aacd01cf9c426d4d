//===- Error.h - The runtime's one error type -------------------*- C++ -*-===//
//
// Every user-facing failure in the runtime (bad input, I/O, device errors) is a
// proofc::Error whose message is complete and names its location
// ("path:line: what"), so a tool prints it on one line and exits non-zero.
// An embedder catches proofc::Error (a cancelled evaluation is its subclass
// proofc::Interrupted, RunControl.h). Inside the runtime, errors are raised
// with proofc::fail (runtime/src/support/Fail.h, fmt-formatted).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_ERROR_H
#define PROOFC_RUNTIME_ERROR_H

#include <stdexcept>

namespace proofc {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_ERROR_H
