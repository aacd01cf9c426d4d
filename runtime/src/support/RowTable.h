//===- RowTable.h - Rows of int32 words found by their first words -*- C++
//-*-===//
//
// The host's step memo (host/StepMemo.*: a shard's steps, keyed by the
// state and the candidate's (h, t) where they matter), the warm start's
// search (session/ProofSearch.cpp: the states each triple kept) and the
// host's rollouts (host/HostRollouts.cpp: a call's distinct states) need a
// growing set of fixed-width rows of int32 words, found by the row's first
// `keyWords` words: open addressing with linear probing over 64-bit XXH3
// hashes (the xxhash the engine's DerivedSet hashes its states with), each
// slot holding the hash's high half as a quick reject and the row's index,
// at most half full, doubled when it would be more. Rows are kept in
// insertion order, so an index names a row until retain() or clear(). Not
// thread-safe: the memo holds a mutex per table.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SUPPORT_ROWTABLE_H
#define PROOFC_RUNTIME_SUPPORT_ROWTABLE_H

#include <cstdint>
#include <cstring>
#include <vector>

namespace proofc {

class RowTable {
public:
  /// Rows of `rowWords` words, keyed by their first `keyWords` (1 <=
  /// keyWords <= rowWords).
  RowTable(int32_t keyWords, int32_t rowWords);

  /// The hash of a key (keyWords words) that find() and insert() take.
  uint64_t hash(const int32_t *key) const;

  /// The index of the row whose key is `key` (of hash `hash`), or -1.
  int64_t find(const int32_t *key, uint64_t hash) const;
  /// Appends `row` (rowWords words; its key first) unless a row with its
  /// key is there; true when appended.
  bool insert(const int32_t *row, uint64_t hash) {
    const size_t before = size();
    return intern(row, hash) == before;
  }
  /// The index of the row with `row`'s key (of hash `hash`), `row`
  /// appended first when there is none: numbers the distinct rows by
  /// their first insertion.
  size_t intern(const int32_t *row, uint64_t hash);

  size_t size() const { return hashes_.size(); }
  int32_t rowWords() const { return rowWords_; }
  uint64_t hashOf(size_t i) const { return hashes_[i]; }
  const int32_t *row(size_t i) const {
    return words_.data() + i * static_cast<size_t>(rowWords_);
  }
  /// Every row's words, [size()][rowWords], in insertion order.
  const int32_t *words() const { return words_.data(); }

  /// Keeps only the rows for which keep(row) is true, in their order.
  template <typename Keep> void retain(Keep &&keep) {
    size_t n = 0;
    for (size_t i = 0; i < size(); ++i) {
      if (!keep(row(i)))
        continue;
      if (n != i) {
        std::memmove(words_.data() + n * static_cast<size_t>(rowWords_), row(i),
                     sizeof(int32_t) * static_cast<size_t>(rowWords_));
        hashes_[n] = hashes_[i];
      }
      ++n;
    }
    hashes_.resize(n);
    words_.resize(n * static_cast<size_t>(rowWords_));
    reindex();
  }
  /// Drops every row (keeping the memory).
  void clear();

  /// Bytes a row takes at most: its words, its hash and two index slots
  /// (the index is at most half full); not the slack of growing by
  /// doubling.
  static uint64_t bytesPerRow(int32_t rowWords) {
    return 4 * static_cast<uint64_t>(rowWords) + 3 * sizeof(uint64_t);
  }

private:
  /// The slot of `key`, or the empty slot where it would go.
  size_t probe(const int32_t *key, uint64_t hash) const;
  /// An index of at least 2 size() slots, every row placed by its hash.
  void reindex();

  int32_t keyWords_, rowWords_;
  std::vector<uint64_t> hashes_; ///< [row]
  std::vector<int32_t> words_;   ///< [row][rowWords_]
  /// [slot]: 0 empty, else the hash's high half << 32 | (row + 1); a power
  /// of two, or empty before the first insert.
  std::vector<uint64_t> slots_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SUPPORT_ROWTABLE_H
