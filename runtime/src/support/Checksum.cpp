//===- Checksum.cpp - The checksum of proofc's own files ------------------===//
#include "support/Checksum.h"

#include <fmt/format.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace proofc {

std::string checksumText(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return fmt::format("xxh3:{:016x}{:016x}", h.high64, h.low64);
}

} // namespace proofc
