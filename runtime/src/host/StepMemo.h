//===- StepMemo.h - The host backend's step memo ----------------*- C++ -*-===//
//
// A proof step is a pure function of the slot's state G and of the
// candidate c only through spec §3's "never use c as a fact", which matters
// only when c's triple unifies with G's first goal (kernel_abi.h's
// memoStepIsRelevant). The policy encodes each row on its own and the action
// rule sees only the slot's logits, so the step's result -- the chosen state,
// its log-probability and the action -- is keyed by G plus, for a relevant
// step, c's (h, t), and a step taken from the memo is the step the slot
// would compute, bit for bit: outcomes and recorded actions with the memo
// on, off or full are identical. The CUDA backend's memo.cu keys its table
// the same way; this is the host's, shared by the worker threads of a run.
//
// On V10 (kinship, 18,745 candidates) 75 k of the 267 k steps are new
// (docs/performance.md, "The floor"): the other steps neither derive nor
// encode, and the policy, 85 % of the host's time, encodes 4.5 M rows
// instead of 16.6 M.
//
// The table: 64 shards, each a RowTable (support/RowTable.h: open
// addressing over XXH3 hashes) of the steps' rows behind the shard's mutex:
// a lookup or an insert holds one shard for the length of a copy, so the
// threads rarely meet, and nothing is read while another thread writes it.
// Memory grows with the entries held, up to `capacity` entries in all; past
// that, new steps are not kept (they are computed again). Entries are never
// removed: a run's memo is made for the run (its weights, its knowledge
// base) and dropped with it.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_HOST_STEPMEMO_H
#define PROOFC_RUNTIME_HOST_STEPMEMO_H

#include "proofc/runtime/Dataset.h"
#include "support/RowTable.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace proofc {

class StepMemo {
public:
  /// A memo of states of `A` atoms holding at most `capacity` (>= 1) steps.
  StepMemo(int32_t A, int64_t capacity);

  /// What a step is looked up and kept by: c's h and t when the step is
  /// relevant to c (-1 otherwise), then the state's words; and their hash.
  struct Key {
    uint64_t hash = 0;
    std::vector<int32_t> words; ///< relH, relT, the state (3 A words)
    int32_t relH() const { return words[0]; }
    int32_t relT() const { return words[1]; }
  };
  /// The key of the step from `state` (A atoms, canonical) for candidate c,
  /// written to `key` (its words' memory reused: no allocation per step).
  void key(const Atom *state, const Triple &c, Key &key) const;
  Key key(const Atom *state, const Triple &c) const {
    Key k;
    key(state, c, k);
    return k;
  }

  /// On a hit, writes the kept step's chosen state (A atoms) to `chosen`, its
  /// log-probability and its action, and returns true.
  bool find(const Key &key, Atom *chosen, double *logp, int32_t *action) const;

  /// Keeps the step under `key`, unless the memo already has it (a thread
  /// that computed the same step first: the same result) or holds
  /// `capacity` steps.
  void insert(const Key &key, const Atom *chosen, double logp, int32_t action);

  /// Steps kept.
  int64_t size() const { return size_.load(std::memory_order_relaxed); }

  /// Bytes one kept step takes at most: its row (the key, the chosen
  /// state, the action, the log-probability's two words) in its shard's
  /// RowTable, and as much again for the slack of growing by doubling. What
  /// memoAutoCap (support/MemoSize.h) sizes the host's memo by.
  static uint64_t entryBytes(int32_t A);

  static constexpr int kShardBits = 6;

private:
  struct alignas(64) Shard {
    explicit Shard(int32_t keyWords, int32_t rowWords)
        : rows(keyWords, rowWords) {}
    mutable std::mutex mutex;
    RowTable rows; ///< [entry]: the key, the chosen state, action, logp
  };

  /// The shard of `key`: the hash's top kShardBits bits.
  size_t shardOf(const Key &key) const {
    return static_cast<size_t>(key.hash >> (64 - kShardBits));
  }

  const int32_t A_;
  const int32_t keyWords_, rowWords_;
  const int64_t capacity_;
  std::atomic<int64_t> size_{0};
  std::deque<Shard> shards_; ///< a deque: a Shard (its mutex) cannot move
};

} // namespace proofc

#endif // PROOFC_RUNTIME_HOST_STEPMEMO_H
