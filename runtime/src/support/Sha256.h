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

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace proofc {

/// SHA-256 over bytes given in pieces (an outcomes file written block by
/// block): update() any number of times, then hexDigest(). The digest of
/// the concatenated pieces equals sha256Hex() of the whole.
class Sha256 {
public:
  Sha256();
  void update(std::string_view bytes);
  /// 64 lowercase hex digits; does not change the state.
  std::string hexDigest() const;

private:
  std::array<uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
std::string sha256Hex(std::string_view bytes);

} // namespace proofc

#endif // PROOFC_RUNTIME_SHA256_H
