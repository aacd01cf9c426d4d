//===- StepMemo.cpp - The host backend's step memo ------------------------===//
//
// StepMemo.h says what a step is keyed by and why a kept step is the step a
// slot would compute. Here: the hash, the shards' open-addressing index and
// the entries' words.
//
//===----------------------------------------------------------------------===//
#include "host/StepMemo.h"

#include "proofc/contract/kernel_abi.h"
#include "support/Fail.h"

#include <cstring>

namespace proofc {
namespace {

/// Index slots a shard starts with (a power of two).
constexpr size_t kFirstSlots = 64;

/// An entry's words: the hash (two), h and t of a relevant step (-1
/// otherwise), then the state.
constexpr int32_t kHashWord = 0;
constexpr int32_t kRelWord = 2;
constexpr int32_t kStateWord = 4;

constexpr uint64_t kTagMask = 0xffffffff00000000ULL;

/// splitmix64's finalizer: every input bit moves every output bit.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t pack(int32_t hi, int32_t lo) {
  return static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32 |
         static_cast<uint32_t>(lo);
}

/// An index slot: the hash's high bits (a quick reject) and entry + 1.
uint64_t slotOf(uint64_t hash, size_t entry) {
  return (hash & kTagMask) | (static_cast<uint64_t>(entry) + 1);
}

int32_t wordsPerEntry(int32_t A) { return kStateWord + 6 * A + 3; }

} // namespace

StepMemo::StepMemo(int32_t A, int64_t capacity)
    : A_(A), entryWords_(wordsPerEntry(A)), chosenWord_(kStateWord + 3 * A),
      actionWord_(kStateWord + 6 * A), logpWord_(kStateWord + 6 * A + 1),
      capacity_(capacity), shards_(size_t{1} << kShardBits) {
  if (A < 1 || capacity < 1)
    fail("step memo: A = {} and a capacity of {} entries must be at least 1", A,
         capacity);
}

uint64_t StepMemo::entryBytes(int32_t A) {
  return 2 *
         (4 * static_cast<uint64_t>(wordsPerEntry(A)) + 2 * sizeof(uint64_t));
}

StepMemo::Key StepMemo::key(const Atom *state, const Triple &c) const {
  const bool relevant = proofc_abi::memoStepIsRelevant(
      state[0].p, state[0].a, state[0].b, c.h, c.r, c.t);
  Key k{0, relevant ? c.h : -1, relevant ? c.t : -1};
  uint64_t h = mix(pack(k.relH, k.relT));
  for (int32_t i = 0; i < A_; ++i) {
    h = mix(h ^ pack(state[i].p, state[i].a));
    h = mix(h ^ static_cast<uint32_t>(state[i].b));
  }
  k.hash = h;
  return k;
}

int64_t StepMemo::locate(const Shard &shard, const Key &key, const Atom *state,
                         size_t *freeSlot) const {
  if (shard.slots.empty())
    return -1;
  const size_t mask = shard.slots.size() - 1;
  const uint64_t tag = key.hash & kTagMask;
  for (size_t at = key.hash & mask;; at = (at + 1) & mask) {
    const uint64_t slot = shard.slots[at];
    if (slot == 0) {
      *freeSlot = at;
      return -1;
    }
    if ((slot & kTagMask) != tag)
      continue;
    const size_t entry = static_cast<size_t>(slot & ~kTagMask) - 1;
    const int32_t *w = shard.words.data() + entry * entryWords_;
    if (w[kRelWord] == key.relH && w[kRelWord + 1] == key.relT &&
        std::memcmp(w + kStateWord, state, sizeof(Atom) * A_) == 0)
      return static_cast<int64_t>(entry);
  }
}

void StepMemo::grow(Shard &shard) const {
  shard.slots.assign(shard.slots.empty() ? kFirstSlots : 2 * shard.slots.size(),
                     0);
  const size_t mask = shard.slots.size() - 1;
  for (size_t e = 0, n = entriesOf(shard); e < n; ++e) {
    const int32_t *w = shard.words.data() + e * entryWords_;
    const uint64_t hash = pack(w[kHashWord], w[kHashWord + 1]);
    size_t at = hash & mask;
    while (shard.slots[at] != 0)
      at = (at + 1) & mask;
    shard.slots[at] = slotOf(hash, e);
  }
}

bool StepMemo::find(const Key &key, const Atom *state, Atom *chosen,
                    double *logp, int32_t *action) const {
  const Shard &shard = shards_[shardOf(key)];
  std::lock_guard<std::mutex> lock(shard.mutex);
  size_t freeSlot = 0;
  const int64_t entry = locate(shard, key, state, &freeSlot);
  if (entry < 0)
    return false;
  const int32_t *w = shard.words.data() + entry * entryWords_;
  std::memcpy(chosen, w + chosenWord_, sizeof(Atom) * A_);
  *action = w[actionWord_];
  std::memcpy(logp, w + logpWord_, sizeof(double));
  return true;
}

void StepMemo::insert(const Key &key, const Atom *state, const Atom *chosen,
                      double logp, int32_t action) {
  Shard &shard = shards_[shardOf(key)];
  std::lock_guard<std::mutex> lock(shard.mutex);
  size_t freeSlot = 0;
  if (locate(shard, key, state, &freeSlot) >= 0)
    return; // another thread's step: the same one
  // One more kept step, unless the memo holds `capacity` already.
  int64_t held = size_.load(std::memory_order_relaxed);
  do {
    if (held >= capacity_)
      return;
  } while (
      !size_.compare_exchange_weak(held, held + 1, std::memory_order_relaxed));
  const size_t entry = entriesOf(shard);
  if (2 * (entry + 1) > shard.slots.size()) {
    grow(shard);
    locate(shard, key, state, &freeSlot);
  }
  shard.words.resize((entry + 1) * entryWords_);
  int32_t *w = shard.words.data() + entry * entryWords_;
  w[kHashWord] = static_cast<int32_t>(key.hash >> 32);
  w[kHashWord + 1] = static_cast<int32_t>(key.hash & 0xffffffffULL);
  w[kRelWord] = key.relH;
  w[kRelWord + 1] = key.relT;
  std::memcpy(w + kStateWord, state, sizeof(Atom) * A_);
  std::memcpy(w + chosenWord_, chosen, sizeof(Atom) * A_);
  w[actionWord_] = action;
  std::memcpy(w + logpWord_, &logp, sizeof(double));
  shard.slots[freeSlot] = slotOf(key.hash, entry);
}

} // namespace proofc
