//===- StepMemo.cpp - The host backend's step memo ------------------------===//
//
// StepMemo.h says what a step is keyed by and why a kept step is the step a
// slot would compute. Here: an entry's row in its shard's RowTable.
//
//===----------------------------------------------------------------------===//
#include "host/StepMemo.h"

#include "proofc/contract/kernel_abi.h"
#include "support/Fail.h"

#include <cstring>

namespace proofc {
namespace {

/// A row: the key (relH, relT, the state: 2 + 3A words), the chosen state
/// (3A), the action, the log-probability's two words.
int32_t keyWordsOf(int32_t A) { return 2 + 3 * A; }
int32_t rowWordsOf(int32_t A) { return keyWordsOf(A) + 3 * A + 3; }

} // namespace

StepMemo::StepMemo(int32_t A, int64_t capacity)
    : A_(A), keyWords_(keyWordsOf(A)), rowWords_(rowWordsOf(A)),
      capacity_(capacity) {
  if (A < 1 || capacity < 1)
    fail("step memo: A = {} and a capacity of {} entries must be at least 1", A,
         capacity);
  for (int i = 0; i < (1 << kShardBits); ++i)
    shards_.emplace_back(keyWords_, rowWords_);
}

uint64_t StepMemo::entryBytes(int32_t A) {
  return 2 * RowTable::bytesPerRow(rowWordsOf(A));
}

void StepMemo::key(const Atom *state, const Triple &c, Key &key) const {
  const bool relevant = proofc_abi::memoStepIsRelevant(
      state[0].p, state[0].a, state[0].b, c.h, c.r, c.t);
  key.words.resize(static_cast<size_t>(keyWords_));
  key.words[0] = relevant ? c.h : -1;
  key.words[1] = relevant ? c.t : -1;
  std::memcpy(key.words.data() + 2, state, sizeof(Atom) * A_);
  key.hash = shards_.front().rows.hash(key.words.data());
}

bool StepMemo::find(const Key &key, Atom *chosen, double *logp,
                    int32_t *action) const {
  const Shard &shard = shards_[shardOf(key)];
  std::lock_guard<std::mutex> lock(shard.mutex);
  const int64_t entry = shard.rows.find(key.words.data(), key.hash);
  if (entry < 0)
    return false;
  const int32_t *w = shard.rows.row(static_cast<size_t>(entry)) + keyWords_;
  std::memcpy(chosen, w, sizeof(Atom) * A_);
  *action = w[3 * A_];
  std::memcpy(logp, w + 3 * A_ + 1, sizeof(double));
  return true;
}

void StepMemo::insert(const Key &key, const Atom *chosen, double logp,
                      int32_t action) {
  Shard &shard = shards_[shardOf(key)];
  std::lock_guard<std::mutex> lock(shard.mutex);
  if (shard.rows.find(key.words.data(), key.hash) >= 0)
    return; // another thread's step: the same one
  // One more kept step, unless the memo holds `capacity` already.
  int64_t held = size_.load(std::memory_order_relaxed);
  do {
    if (held >= capacity_)
      return;
  } while (
      !size_.compare_exchange_weak(held, held + 1, std::memory_order_relaxed));
  // The row is composed in a buffer of the thread's (no allocation per
  // kept step once it has grown), then copied into the shard.
  thread_local std::vector<int32_t> row;
  row.assign(key.words.begin(), key.words.end());
  row.resize(static_cast<size_t>(rowWords_));
  int32_t *w = row.data() + keyWords_;
  std::memcpy(w, chosen, sizeof(Atom) * A_);
  w[3 * A_] = action;
  std::memcpy(w + 3 * A_ + 1, &logp, sizeof(double));
  shard.rows.insert(row.data(), key.hash);
}

} // namespace proofc
