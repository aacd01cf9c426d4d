//===- memo.cu - The step memo: a state's step, shared across candidates --===//
//
// A proof step is a pure function of the slot's state G and of the
// candidate c only through §3's "never use c as a fact": derive(G, c) can
// differ from derive(G, c') only when c's triple unifies with G's first goal.
// So the step's result (the chosen state, its log-probability and the
// action that chose it, spec §4)
// is keyed by G plus, for such "relevant" steps, c's (h, t). The policy's
// rows are encoded independently of each other and the action rule sees
// only the slot's logits, so a step taken from the memo is the step the
// slot would compute, bit for bit.
//
// The table: `entries` (a power of two) entries of kEntryWords int32 words,
// open addressing with linear probing, zero-filled before the run:
//   [0] the key's hash (0: empty), [1] h, [2] t of a relevant step (-1
//   otherwise), [3, 3+W) the state, [3+W, 3+2W) the chosen state, [3+2W]
//   the step's log-probability (float bits), [4+2W] the action (its index
//   in the derived list), written and required only by a run that records
//   the actions (--proofs; the table is zero-filled before every run).
// Every word but the hash is stored XOR kMark, so a word is 0 until it is
// written, and each is written once: a reader that sees all of an entry's
// words non-zero has the final entry, whatever order the writes became
// visible in, so one round of relaxed loads reads it (no acquire/release
// pair, which would cost a second round trip). A slot that misses claims an
// empty entry (atomicCAS of the hash) and writes the key; at its next
// advance it writes the value. An entry with a zero word is a miss: not yet
// written, or (a -0.0 log-probability or a word equal to kMark, never seen)
// never usable, which only costs the recomputation. Entries are never
// removed: a full table only stops new claims. A lookup visits kProbes
// entries at most: its first round of loads reads the first entry whole and
// the hashes of the others, so a hit on the first entry, and a miss in a
// full table, cost one round trip; a later entry, a second.
//
// advance.cu's advanceSlot calls these through its ThreadWalk (one thread
// per slot), or their warp forms below through its WarpWalk (a slot's 32
// lanes); both lookups are probeEntries' protocol. Plain CUDA
// C++ with inline PTX (relaxed loads and stores at GPU scope, sm_70+), no
// includes of its own: step.cu and slot.cu include engine.cu (whose state
// hash it extends) before it; compiled by NVRTC with -DPROOFC_A=... The
// unit tests' CPU shim
// (no __CUDA_ARCH__) runs one block at a time: plain accesses there.
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_MEMO_CU
#define PROOFC_MEMO_CU

#ifndef PROOFC_ENGINE_CU
#error "memo.cu: include engine.cu first (its state hash; template includes do not nest)"
#endif

/// The steps a slot may wait for another slot's step (advance.cu's
/// advanceSlot), from -DPROOFC_MEMO_WAITS; 0: none.
#ifndef PROOFC_MEMO_WAITS
#define PROOFC_MEMO_WAITS 0
#endif

namespace proofc_memo {

constexpr int W = proofc_engine_impl::W;
/// The hash, h, t, the state, the chosen state, the log-probability, the
/// action, rounded up to 16 bytes: kernel_abi.h's memoEntryWords, with
/// which the compiler sizes the buffer.
constexpr int kEntryWords = proofc_abi::memoEntryWords(proofc_engine_impl::A);
/// Where an entry's words start (after [0] the hash, [1] h, [2] t).
constexpr int kStateWord = 3;               // the state, W words
constexpr int kChosenWord = kStateWord + W; // the chosen state, W words
constexpr int kLogpWord = kChosenWord + W;  // the step's log-probability
constexpr int kActionWord = kLogpWord + 1;  // the action
static_assert(kEntryWords > kActionWord && kEntryWords % 4 == 0,
              "memo.cu: an entry does not hold its words");
constexpr unsigned kMark = 0x80000000u;
constexpr int kNotRelevant = -1; // entity ids are >= 0
constexpr int kProbes = 4; // entries a lookup may visit

/// Entry `index` of the table.
__device__ __forceinline__ int *tableEntry(int *table,
                                           unsigned long long index) {
  return table + index * kEntryWords;
}

struct Key {
  int relH, relT; // c's head and tail for a relevant step, else kNotRelevant
  unsigned hash;  // never 0
};

/// Whether the step of a state whose first goal is (p, s, o) depends on
/// candidate (h, r, t): kernel_abi.h's rule, which the host backend's memo
/// keys on as well.
__device__ __forceinline__ bool relevantStep(int p, int s, int o, int h, int r,
                                             int t) {
  return proofc_abi::memoStepIsRelevant(p, s, o, h, r, t);
}

/// The key of state g (W words, canonical) for candidate (h, r, t).
__device__ __forceinline__ Key makeKey(const int *g, int h, int r, int t) {
  const bool relevant = relevantStep(g[0], g[1], g[2], h, r, t);
  Key k;
  k.relH = relevant ? h : kNotRelevant;
  k.relT = relevant ? t : kNotRelevant;
  // engine.cu's state hash over the state, h and t.
  int words[W + 2];
  for (int i = 0; i < W; ++i) words[i] = g[i];
  words[W] = k.relH;
  words[W + 1] = k.relT;
  k.hash = proofc_engine_impl::hashWords<W + 2>(words);
  return k;
}

__device__ __forceinline__ void loadEntry(const int *entry, unsigned *w) {
  for (int q = 0; q < kEntryWords; q += 4) {
#if defined(__CUDA_ARCH__)
    asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[q]), "=r"(w[q + 1]), "=r"(w[q + 2]), "=r"(w[q + 3])
                 : "l"(entry + q)
                 : "memory");
#else
    for (int i = 0; i < 4; ++i) w[q + i] = static_cast<unsigned>(entry[q + i]);
#endif
  }
}

/// One word of an entry (its hash, or any other: the warp lookup's lanes).
__device__ __forceinline__ unsigned loadWord(const int *word) {
#if defined(__CUDA_ARCH__)
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];"
               : "=r"(v)
               : "l"(word)
               : "memory");
  return v;
#else
  return static_cast<unsigned>(*word);
#endif
}

__device__ __forceinline__ void storeMarked(int *p, int v) {
  const unsigned marked = static_cast<unsigned>(v) ^ kMark;
#if defined(__CUDA_ARCH__)
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(marked)
               : "memory");
#else
  *p = static_cast<int>(marked);
#endif
}

__device__ __forceinline__ unsigned floatBits(float x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__float_as_int(x));
#else
  unsigned u;
  std::memcpy(&u, &x, 4);
  return u;
#endif
}

__device__ __forceinline__ float bitsFloat(unsigned u) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(static_cast<int>(u));
#else
  float x;
  std::memcpy(&x, &u, 4);
  return x;
#endif
}

/// The probe protocol of both lookups, a thread's (ThreadProbe) and a
/// warp's (WarpProbe, every lane calling alike): the first round of loads
/// reads the first entry whole and the other probes' hashes; an empty entry
/// is claimed (atomicCAS of the hash) and the key written into it, unless
/// another slot just claimed it, with this hash (the step is pending) or
/// another; an entry of this hash is read (a second round for a later
/// probe) and is pending while a word of it is unwritten, passed over when
/// its key differs, else the hit. Returns true on a hit (the probe's `hit`
/// has copied its step out); on a miss `claim` is the entry claimed plus
/// one, or 0, and `pending` whether an entry of this hash is claimed and
/// not yet written (another slot computes the step, or one of the same
/// hash). `step` are where the probe's `hit` copies the step to.
template <typename Probe, typename... Step>
__device__ __forceinline__ bool probeEntries(Probe &probe, int *table,
                                             unsigned mask, const Key &k,
                                             bool withAction, int &claim,
                                             bool &pending, Step &&...step) {
  claim = 0;
  pending = false;
  const unsigned first = k.hash & mask;
  auto entryAt = [&](int j) { return tableEntry(table, (first + j) & mask); };
  probe.loadFirst(entryAt);
  for (int j = 0; j < kProbes; ++j) {
    int *entry = entryAt(j);
    unsigned hash = probe.hash(j);
    if (hash == 0u) {
      hash = probe.claimEmpty(entry, k.hash);
      if (hash == 0u) { // claimed: the key now, the value after the step
        probe.writeKey(entry, k);
        claim = static_cast<int>((first + j) & mask) + 1;
        return false;
      }
      if (hash == k.hash) { // just claimed by another slot
        pending = true;
        return false;
      }
      continue;
    }
    if (hash != k.hash) continue;
    if (j > 0) probe.load(entry);
    if (probe.unwritten(withAction)) {
      pending = true;
      return false; // being written (or never usable)
    }
    if (probe.differs(k)) continue; // another key with the same hash
    probe.hit(withAction, step...);
    return true;
  }
  return false;
}

/// A thread's probe of state g: the entries' words in its registers.
struct ThreadProbe {
  const int *g;
  unsigned w[kEntryWords], hashes[kProbes]; // loaded before they are read

  __device__ __forceinline__ explicit ThreadProbe(const int *g) : g(g) {}
  template <typename EntryAt>
  __device__ __forceinline__ void loadFirst(EntryAt entryAt) {
    loadEntry(entryAt(0), w);
    hashes[0] = w[0];
    for (int j = 1; j < kProbes; ++j) hashes[j] = loadWord(entryAt(j));
  }
  __device__ __forceinline__ unsigned hash(int j) const { return hashes[j]; }
  __device__ __forceinline__ unsigned claimEmpty(int *entry,
                                                 unsigned hash) const {
    return static_cast<unsigned>(
        atomicCAS(reinterpret_cast<unsigned *>(entry), 0u, hash));
  }
  __device__ __forceinline__ void writeKey(int *entry, const Key &k) const {
    storeMarked(entry + 1, k.relH);
    storeMarked(entry + 2, k.relT);
    for (int i = 0; i < W; ++i) storeMarked(entry + kStateWord + i, g[i]);
  }
  __device__ __forceinline__ void load(const int *entry) {
    loadEntry(entry, w);
  }
  // Both checks as trees (proofc_engine_impl::reduceTree): a hit's latency
  // is one round trip plus these.
  __device__ __forceinline__ bool unwritten(bool withAction) const {
    using proofc_engine_impl::reduceTree;
    constexpr int kWords = kLogpWord; // after the hash, to the log-probability
    unsigned low[kWords];
    for (int i = 0; i < kWords; ++i) low[i] = w[1 + i];
    return reduceTree<kWords>(low, [](unsigned a, unsigned b) {
             return a < b ? a : b;
           }) == 0u ||
           (withAction && w[kActionWord] == 0u);
  }
  __device__ __forceinline__ bool differs(const Key &k) const {
    using proofc_engine_impl::reduceTree;
    unsigned diff[2 + W];
    diff[0] = w[1] ^ kMark ^ static_cast<unsigned>(k.relH);
    diff[1] = w[2] ^ kMark ^ static_cast<unsigned>(k.relT);
    for (int i = 0; i < W; ++i)
      diff[2 + i] = w[kStateWord + i] ^ kMark ^ static_cast<unsigned>(g[i]);
    return reduceTree<2 + W>(diff,
                             [](unsigned a, unsigned b) { return a | b; }) !=
           0u;
  }
  __device__ __forceinline__ void hit(bool withAction, int *next,
                                      float &stepLogp, int &stepAction) const {
    for (int i = 0; i < W; ++i)
      next[i] = static_cast<int>(w[kChosenWord + i] ^ kMark);
    stepLogp = bitsFloat(w[kLogpWord] ^ kMark);
    if (withAction) stepAction = static_cast<int>(w[kActionWord] ^ kMark);
  }
};

/// Looks up state g under key k (probeEntries). On a hit copies the chosen
/// state into `next`, its log-probability into `stepLogp` and, when
/// `withAction` (the run records the actions), the action into
/// `stepAction`, and returns true. On a miss returns false and sets `claim`
/// to the entry it claimed plus one (the caller publishes into it after the
/// step), or 0, and `pending` to whether the step is pending.
__device__ __forceinline__ bool lookup(int *table, unsigned mask,
                                       const int *g, const Key &k, int *next,
                                       float &stepLogp, int &stepAction,
                                       bool withAction, int &claim,
                                       bool &pending) {
  ThreadProbe probe(g);
  return probeEntries(probe, table, mask, k, withAction, claim, pending, next,
                      stepLogp, stepAction);
}

/// Publishes the step of claimed entry `claim - 1`: to state `next` with
/// log-probability `stepLogp`, chosen as action `stepAction` (stored only
/// `withAction`: no extra store when the run records nothing).
/// A NaN stepLogp (the step had a non-finite logit) is stored like any
/// other: a candidate that takes the step gets the NaN too and is named by
/// the runtime's check as without the memo (docs/gpu-kernels.md).
__device__ __forceinline__ void publish(int *table, int claim, const int *next,
                                        float stepLogp, int stepAction,
                                        bool withAction) {
  int *entry = tableEntry(table, claim - 1);
  for (int i = 0; i < W; ++i) storeMarked(entry + kChosenWord + i, next[i]);
  storeMarked(entry + kLogpWord, static_cast<int>(floatBits(stepLogp)));
  if (withAction) storeMarked(entry + kActionWord, stepAction);
}

// ---------------------------------------------------------------------------
// The same by the 32 lanes of one warp (advance.cu's WarpWalk, the step
// schedule's advance-engine): lane i holds word i of the state, and an
// entry's words i, i + 32, ... (kLaneWords), so an entry is read in one
// coalesced round of loads; the key's hash is a sum of a word a lane
// (engine.cu's hashWords, whose sum may be taken in any order), and the
// entry's checks are votes. The results are the thread functions' bit for
// bit (MemoLookupEmulationTest runs both on the same tables). Every lane of
// the warp calls them with the same key (warp-uniform control flow). Only
// where a key's words fit the lanes (the state's W and (h, t): A <= 10);
// PROOFC_WARP_MEMO says whether they are defined.
// ---------------------------------------------------------------------------

#if 3 * PROOFC_A + 2 <= 32
#define PROOFC_WARP_MEMO 1

constexpr unsigned kFullWarp = 0xffffffffu;
/// An entry's words a lane reads.
constexpr int kLaneWords = (kEntryWords + 31) / 32;

__device__ __forceinline__ int laneId() {
  return static_cast<int>(threadIdx.x) & 31;
}

/// Lane `src`'s v, in every lane.
template <typename T> __device__ __forceinline__ T fromLane(T v, int src) {
  return __shfl_sync(kFullWarp, v, src);
}

/// The key of the state whose word `lane` is `word` (0 past W) for
/// candidate (h, r, t); `factor` is engine.cu's hashFactor(lane).
__device__ __forceinline__ Key makeKeyWarp(int word, unsigned factor, int h,
                                           int r, int t) {
  const int lane = laneId();
  const bool relevant = relevantStep(fromLane(word, 0), fromLane(word, 1),
                                     fromLane(word, 2), h, r, t);
  Key k;
  k.relH = relevant ? h : kNotRelevant;
  k.relT = relevant ? t : kNotRelevant;
  const int keyWord = lane < W ? word
                      : lane == W ? k.relH
                      : lane == W + 1 ? k.relT
                                      : 0;
  unsigned sum = lane < W + 2 ? static_cast<unsigned>(keyWord) * factor : 0u;
  for (int delta = 16; delta > 0; delta >>= 1)
    sum += __shfl_xor_sync(kFullWarp, sum, delta);
  k.hash = proofc_engine_impl::hashFinish(sum);
  return k;
}

/// The entry's words this lane holds (0 past the entry).
__device__ __forceinline__ void loadEntryLanes(const int *entry,
                                               unsigned (&w)[kLaneWords]) {
  const int lane = laneId();
  for (int q = 0; q < kLaneWords; ++q)
    w[q] = lane + 32 * q < kEntryWords ? loadWord(entry + lane + 32 * q) : 0u;
}

/// Entry word `i` (a constant), in every lane.
template <int i>
__device__ __forceinline__ unsigned entryWord(const unsigned (&w)[kLaneWords]) {
  return fromLane(w[i / 32], i % 32);
}

/// A warp's probe of the state whose word `lane` is `word` (0 past W): lane
/// i holds an entry's words i, i + 32, ... (kLaneWords), the other probes'
/// hashes in lanes 1 .. kProbes - 1; lane 0 claims, the lanes write the key
/// a word each, the checks are votes.
struct WarpProbe {
  int word;
  int lane = laneId();
  unsigned w[kLaneWords], probeHash; // loaded before they are read

  __device__ __forceinline__ explicit WarpProbe(int word) : word(word) {}
  template <typename EntryAt>
  __device__ __forceinline__ void loadFirst(EntryAt entryAt) {
    loadEntryLanes(entryAt(0), w);
    probeHash = lane > 0 && lane < kProbes ? loadWord(entryAt(lane)) : 0u;
  }
  __device__ __forceinline__ unsigned hash(int j) const {
    return fromLane(j == 0 ? w[0] : probeHash, j);
  }
  __device__ __forceinline__ unsigned claimEmpty(int *entry,
                                                 unsigned hash) const {
    unsigned old = 0u;
    if (lane == 0)
      old = static_cast<unsigned>(
          atomicCAS(reinterpret_cast<unsigned *>(entry), 0u, hash));
    return fromLane(old, 0);
  }
  __device__ __forceinline__ void writeKey(int *entry, const Key &k) const {
    if (lane == 0) {
      storeMarked(entry + 1, k.relH);
      storeMarked(entry + 2, k.relT);
    }
    if (lane < W) storeMarked(entry + kStateWord + lane, word);
  }
  __device__ __forceinline__ void load(const int *entry) {
    loadEntryLanes(entry, w);
  }
  // Word i of the entry is lane i % 32's w[i / 32]: unwritten when 0 in
  // [1, kLogpWord] (and the action's with the actions); the key's words
  // [1, kChosenWord) are compared with (h, t) and the state.
  __device__ __forceinline__ bool unwritten(bool withAction) const {
    bool any = false;
    for (int q = 0; q < kLaneWords; ++q) {
      const int i = lane + 32 * q;
      if (w[q] == 0u &&
          ((i >= 1 && i <= kLogpWord) || (withAction && i == kActionWord)))
        any = true;
    }
    return __any_sync(kFullWarp, any);
  }
  __device__ __forceinline__ bool differs(const Key &k) const {
    bool any = false;
    for (int q = 0; q < kLaneWords; ++q) {
      const int i = lane + 32 * q;
      const int stateWord = fromLane(word, (i - kStateWord) & 31);
      const unsigned v = w[q] ^ kMark;
      if ((i == 1 && v != static_cast<unsigned>(k.relH)) ||
          (i == 2 && v != static_cast<unsigned>(k.relT)) ||
          (i >= kStateWord && i < kChosenWord &&
           v != static_cast<unsigned>(stateWord)))
        any = true;
    }
    return __any_sync(kFullWarp, any);
  }
  /// The chosen state's word `lane` is entry word kChosenWord + lane.
  __device__ __forceinline__ void hit(bool withAction, int &nextWord,
                                      float &stepLogp, int &stepAction) const {
    const int from = kChosenWord + lane;
    int next = 0;
    for (int q = 0; q < kLaneWords; ++q) {
      const int v = static_cast<int>(fromLane(w[q], from & 31) ^ kMark);
      if (from / 32 == q) next = v;
    }
    nextWord = lane < W ? next : 0;
    stepLogp = bitsFloat(entryWord<kLogpWord>(w) ^ kMark);
    if (withAction)
      stepAction = static_cast<int>(entryWord<kActionWord>(w) ^ kMark);
  }
};

/// lookup() by a warp (probeEntries with a WarpProbe): `word` is the
/// state's word `lane` (0 past W), and on a hit `nextWord` gets the chosen
/// state's word `lane` (0 past W).
__device__ __forceinline__ bool lookupWarp(int *table, unsigned mask, int word,
                                           const Key &k, int &nextWord,
                                           float &stepLogp, int &stepAction,
                                           bool withAction, int &claim,
                                           bool &pending) {
  WarpProbe probe(word);
  return probeEntries(probe, table, mask, k, withAction, claim, pending,
                      nextWord, stepLogp, stepAction);
}

/// publish() by a warp: `nextWord` is the chosen state's word `lane`.
__device__ __forceinline__ void publishWarp(int *table, int claim,
                                            int nextWord, float stepLogp,
                                            int stepAction, bool withAction) {
  const int lane = laneId();
  int *entry = tableEntry(table, claim - 1);
  if (lane < W) storeMarked(entry + kChosenWord + lane, nextWord);
  if (lane == 0) {
    storeMarked(entry + kLogpWord, static_cast<int>(floatBits(stepLogp)));
    if (withAction) storeMarked(entry + kActionWord, stepAction);
  }
}

#else
#define PROOFC_WARP_MEMO 0
#endif // 3 * PROOFC_A + 2 <= 32

} // namespace proofc_memo

#endif // PROOFC_MEMO_CU
