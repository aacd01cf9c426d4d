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

std::string checksumText(const std::vector<std::string_view> &pieces) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  for (std::string_view piece : pieces)
    XXH3_128bits_update(&state, piece.data(), piece.size());
  const XXH128_hash_t h = XXH3_128bits_digest(&state);
  return fmt::format("xxh3:{:016x}{:016x}", h.high64, h.low64);
}

} // namespace proofc
