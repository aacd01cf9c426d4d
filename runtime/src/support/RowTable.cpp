//===- RowTable.cpp - Rows of int32 words found by their first words ------===//
//
// RowTable.h says what it is for and how it is laid out.
//
//===----------------------------------------------------------------------===//
#include "support/RowTable.h"

#include "support/Fail.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace proofc {
namespace {

constexpr uint64_t kTagMask = 0xffffffff00000000ULL;
/// Index slots a table starts with (a power of two).
constexpr size_t kFirstSlots = 64;

uint64_t slotOf(uint64_t hash, size_t row) {
  return (hash & kTagMask) | (static_cast<uint64_t>(row) + 1);
}

} // namespace

RowTable::RowTable(int32_t keyWords, int32_t rowWords)
    : keyWords_(keyWords), rowWords_(rowWords) {
  if (keyWords < 1 || rowWords < keyWords)
    fail("row table: {} key words of {} row words", keyWords, rowWords);
}

uint64_t RowTable::hash(const int32_t *key) const {
  return XXH3_64bits(key, sizeof(int32_t) * static_cast<size_t>(keyWords_));
}

size_t RowTable::probe(const int32_t *key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = hash & kTagMask;
  for (size_t at = hash & mask;; at = (at + 1) & mask) {
    const uint64_t slot = slots_[at];
    if (slot == 0)
      return at;
    if ((slot & kTagMask) != tag)
      continue;
    const size_t r = static_cast<size_t>(slot & ~kTagMask) - 1;
    if (hashes_[r] == hash &&
        std::memcmp(row(r), key,
                    sizeof(int32_t) * static_cast<size_t>(keyWords_)) == 0)
      return at;
  }
}

int64_t RowTable::find(const int32_t *key, uint64_t hash) const {
  if (slots_.empty())
    return -1;
  const uint64_t slot = slots_[probe(key, hash)];
  return slot == 0 ? -1 : static_cast<int64_t>(slot & ~kTagMask) - 1;
}

size_t RowTable::intern(const int32_t *row, uint64_t hash) {
  if (2 * (size() + 1) > slots_.size()) {
    const int64_t found = find(row, hash);
    if (found >= 0)
      return static_cast<size_t>(found);
    hashes_.push_back(hash);
    words_.insert(words_.end(), row, row + rowWords_);
    reindex();
    return size() - 1;
  }
  const size_t at = probe(row, hash);
  if (slots_[at] != 0)
    return static_cast<size_t>(slots_[at] & ~kTagMask) - 1;
  slots_[at] = slotOf(hash, size());
  hashes_.push_back(hash);
  words_.insert(words_.end(), row, row + rowWords_);
  return size() - 1;
}

void RowTable::clear() {
  hashes_.clear();
  words_.clear();
  slots_.clear();
}

void RowTable::reindex() {
  size_t slots = slots_.empty() ? kFirstSlots : slots_.size();
  while (2 * size() > slots)
    slots *= 2;
  slots_.assign(slots, 0);
  const size_t mask = slots - 1;
  for (size_t r = 0; r < size(); ++r) {
    size_t at = hashes_[r] & mask;
    while (slots_[at] != 0)
      at = (at + 1) & mask;
    slots_[at] = slotOf(hashes_[r], r);
  }
}

} // namespace proofc
