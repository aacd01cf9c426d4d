//===- ChecksumTest.cpp - The checksum of proofc's own files --------------===//
//
// Checksum.h: XXH3-128, written "xxh3:" and 32 hex digits (high half first,
// xxhash's canonical order), so that a part written by one build is read by
// another and by tools outside proofc (the fuzz seeds were made by one).
//
//===----------------------------------------------------------------------===//
#include "support/Checksum.h"

#include <gtest/gtest.h>

namespace proofc {
namespace {

TEST(Checksum, IsXxh3128InCanonicalHex) {
  // xxhsum -H2 (XXH3-128) of the empty input and of "proofc".
  EXPECT_EQ(checksumText(""), "xxh3:99aa06d3014798d86001c324468d497f");
  const std::string text = checksumText("proofc");
  EXPECT_EQ(text.size(), kChecksumTextBytes);
  EXPECT_NE(text, checksumText("proofd"));
  EXPECT_EQ(text, checksumText("proofc"));
}

} // namespace
} // namespace proofc
