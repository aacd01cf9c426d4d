//===- Sha256.h - SHA-256 of a byte string ----------------------*- C++ -*-===//
//
// The report names the outcomes file it belongs to by the SHA-256 of its
// bytes ("outcomes.sha256", docs/report-schema.md), so that a reader -- or
// `sha256sum` -- can tell that a report and an outcomes file come from the
// same run. A plain FIPS 180-4 implementation: the runtime links no crypto
// library, and this is not a secret-keeping use.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SHA256_H
#define PROOFC_RUNTIME_SHA256_H

#include <string>
#include <string_view>

namespace proofc {

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
std::string sha256Hex(std::string_view bytes);

} // namespace proofc

#endif // PROOFC_RUNTIME_SHA256_H
