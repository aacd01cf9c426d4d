//===- engine.cu - Spec §3 derive(G, c) for every active slot -------------===//
//
// One block per slot. The successors of the slot's state G = [g1, rest] are a
// virtual list of "items" in the spec's order: the facts that can match g1
// (ascending (s', o') straight from the knowledge base's CSR indices), then
// the rules whose head predicate is g1's, in file order. Items are processed
// in chunks of PROOFC_ENGINE_THREADS, one thread per item: the thread builds
// and canonicalizes its yield in registers, the block drops yields already
// seen (a kept state, or an earlier item of the chunk) and an exclusive scan
// appends the survivors in order, until S states are kept (§3 steps 4, 6).
//
// "Seen before" is one lookup, not a scan: a workgroup hash table maps a
// state's hash to its smallest claimant, an item of this chunk (its thread
// index) or a kept state (-(position + 1)), set with atomicCAS/atomicMin. An
// item keeps its yield when it is the smallest claimant; otherwise it
// compares the claimant's state, and only when two different states share a
// 32-bit hash does it fall back to comparing every earlier state.
//
// Two exact shortcuts (the host engine takes the same ones): a yield is empty
// only for a fact step of a one-goal state, so the first such success makes
// the result [TRUE] (§3 steps 3, 5) and no other yield can be TRUE; and when
// no variable of g1 occurs in the rest, every fact step yields the same state,
// so the fact items stop after the first success.
//
// Plain CUDA C++ whose one include is kernel_abi.h (the signature and the
// scratch size), compiled by NVRTC with -DPROOFC_A=.. and -DPROOFC_S=..;
// the unit tests also compile it as C++ through a CPU shim, so
// control flow around __syncthreads() is block-uniform and no warp intrinsics
// are used. Layouts and the signature: docs/gpu-kernels.md.
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_ENGINE_CU
#define PROOFC_ENGINE_CU

#ifndef PROOFC_A
#error "engine.cu: compile with -DPROOFC_A=<max atoms per state>"
#endif
#ifndef PROOFC_S
#error "engine.cu: compile with -DPROOFC_S=<max derived states>"
#endif
#ifndef PROOFC_ENGINE_THREADS
#define PROOFC_ENGINE_THREADS 128
#endif

#include "proofc/contract/kernel_abi.h"

namespace proofc_engine_impl {

constexpr int A = PROOFC_A;
constexpr int S = PROOFC_S;
constexpr int T = PROOFC_ENGINE_THREADS;
constexpr int W = 3 * A;             // ints per state
constexpr int kPadPred = -1;
constexpr int kUnbound = -2147483647 - 1;
// G has at most 2A variables; a usable rule (body length k <= A, else its
// yield has more than A atoms) has at most 2(k + 1) <= 2A + 2.
constexpr int kMaxVars = 4 * A + 2;

static_assert(T >= 2 && T <= 1024 && (T & (T - 1)) == 0,
              "PROOFC_ENGINE_THREADS must be a power of two in [2, 1024]");
/// Hash table slots: the power of two at or above 1.5 times the states it
/// can hold (kernel_abi.h).
constexpr int kTable = proofc_abi::deriveTableSlots(S, T);
constexpr unsigned kEmpty = 0u; // hashState never returns it
constexpr int kNoClaim = 0x7fffffff;

/// Per-slot setup, computed by thread 0.
struct SlotPlan {
  int n;          // goals of G
  int nVars;      // distinct variables of G (canonical: -1 .. -nVars)
  int p, s, o;    // g1
  int ownP, ownS, ownO; // the candidate's own fact (r, h, t)
  int factBegin, numFacts, factIndirect; // facts[..] or facts[poFacts[..]]
  int ruleBegin, numRules;
  int factsYieldOne; // every fact step yields the same state
};

/// The block's shared memory for one derive. step.cu's kernels declare it
/// statically (deriveSlot) without the kept states, which they keep in
/// `derived` (global memory, where the policy reads them): a smaller block
/// leaves more slots resident per SM. The policy kernels that call slot.cu
/// lend it from their dynamic shared memory
/// (PROOFC_ENGINE_SCRATCH_FROM_CALLER): the persistent one
/// (PROOFC_ENGINE_KEPT_IN_SCRATCH) at its start, and reads the slot's kept
/// states and state from there: the first two members, at byte offsets 0
/// and 4 * S * W (ints only: no padding); the advancing policy kernel over its rows,
/// its kept states in `derived` as step.cu's.
#ifdef PROOFC_ENGINE_KEPT_IN_SCRATCH
constexpr bool kKeptInScratch = true;
#ifndef PROOFC_ENGINE_SCRATCH_FROM_CALLER
#error "engine.cu: the kept states stay only in the caller's scratch"
#endif
#else
constexpr bool kKeptInScratch = false;
#endif
struct DeriveScratch {
#ifdef PROOFC_ENGINE_KEPT_IN_SCRATCH
  int sKept[S * W];
#endif
  int sG[W];
  SlotPlan pl;
  unsigned sKeptHash[S];
  int sChunk[T * W];
  /// A chunk's hashes while its yields are compared; once its kept
  /// positions are scanned, which thread's yield each position takes
  /// (the block's coalesced copy into derived[b], global memory only).
  union {
    unsigned sHash[T];
    int sSource[T];
  };
  int sValid[T], sScan[T];
  unsigned sTableKey[kTable];
  int sTableClaim[kTable];
  int sKeptCount, sNext, sDone, sTrue, sFactHit;
};
/// Its size in 4-byte words: the compiler sizes the persistent kernel's
/// shared memory with the same function (kernel_abi.h).
constexpr int kScratchWords =
    proofc_abi::deriveScratchWords(A, S, T, kKeptInScratch);
static_assert(sizeof(DeriveScratch) == 4 * kScratchWords,
              "engine.cu: DeriveScratch and kScratchWords disagree");

/// θ in registers: each of an item's two unifications binds at most one
/// variable, the k-th into (vk, tk); an unused one is (kUnbound, kUnbound),
/// which no term equals (walking through it folds away). A variable is only
/// bound to a walked, hence unbound, term: t0 may be v1 but t1 is never v0,
/// so walking applies binding 0, then binding 1 (a chain is at most two
/// long: head (X, X) against goal (V1, V2) binds X -> V1, then V1 -> V2).
struct Subst {
  int v0, t0, v1, t1;
};

__device__ __forceinline__ int walk(int t, const Subst &th) {
  if (t == th.v0) t = th.t0;
  if (t == th.v1) t = th.t1;
  return t;
}

/// Unifies x and y under th; a new binding goes to (v, t), th's unused one.
__device__ __forceinline__ bool unify(int x, int y, const Subst &th, int &v,
                                      int &t) {
  x = walk(x, th);
  y = walk(y, th);
  if (x == y) return true;
  if (x < 0) {
    v = x;
    t = y;
    return true;
  }
  if (y < 0) {
    v = y;
    t = x;
    return true;
  }
  return false;
}

/// Renames the variables of st (padding atoms (kPadPred, 0, 0)) by first
/// occurrence, in registers: an argument takes the new name of the first
/// earlier argument holding the same variable, else the next fresh one.
/// Every index is a compile-time constant once unrolled, so st and orig
/// stay in registers (a map indexed by variable id would be local memory).
__device__ __forceinline__ void canonicalize(int (&st)[W]) {
  int orig[2 * A];
#pragma unroll
  for (int i = 0; i < 2 * A; ++i) orig[i] = st[3 * (i >> 1) + 1 + (i & 1)];
  int next = 0;
#pragma unroll
  for (int i = 0; i < 2 * A; ++i) {
    const int t = orig[i];
    int name = 0; // none: new names are negative
#pragma unroll
    for (int k = 0; k < i; ++k)
      if (orig[k] == t) name = st[3 * (k >> 1) + 1 + (k & 1)];
    if (t < 0) st[3 * (i >> 1) + 1 + (i & 1)] = name != 0 ? name : -++next;
  }
}

/// x[0] op x[1] op ... op x[N-1] as a balanced tree (log2 N dependent
/// steps, not N - 1; x is clobbered). The compiler does not rebalance a
/// loop's chain by itself.
template <int N, typename T, typename Op>
__device__ __forceinline__ T reduceTree(T *x, Op op) {
#pragma unroll
  for (int stride = 1; stride < N; stride *= 2)
#pragma unroll
    for (int i = 0; i + stride < N; i += 2 * stride)
      x[i] = op(x[i], x[i + stride]);
  return x[0];
}

/// murmur3's 32-bit finalizer.
__device__ __forceinline__ unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

/// Word i's odd multiplier in hashWords.
__device__ __forceinline__ unsigned hashFactor(int i) {
  return mix32(0x9E3779B9u * static_cast<unsigned>(i + 1)) | 1u;
}

/// hashWords of the words whose terms (word times hashFactor) sum to `sum`.
__device__ __forceinline__ unsigned hashFinish(unsigned sum) {
  const unsigned h = mix32(sum);
  return h == kEmpty ? 1u : h;
}

/// A hash of N words: word i times its own odd multiplier, summed as a
/// tree, then mixed (the low bits index the tables). Its latency is a few
/// multiplies, not a chain of N: it lies on the path of every derive item
/// and of every step memo lookup. The multipliers must be unrelated (mix32
/// of i, constants once unrolled): with multiples of one constant, states
/// whose words differ by small amounts collide. Never kEmpty. The sum may be
/// taken in any order: memo.cu's warp lookup sums a word a lane, with
/// hashFactor and hashFinish above.
template <int N>
__device__ __forceinline__ unsigned hashWords(const int *w) {
  unsigned terms[N];
#pragma unroll
  for (int i = 0; i < N; ++i)
    terms[i] = static_cast<unsigned>(w[i]) * hashFactor(i);
  return hashFinish(
      reduceTree<N>(terms, [](unsigned a, unsigned b) { return a + b; }));
}

__device__ __forceinline__ unsigned hashState(const int *st) {
  return hashWords<W>(st);
}

/// Claims hash `h` for `claimant`; returns its table slot, whose claim is
/// then the smallest claimant of `h` so far (linear probing).
__device__ __forceinline__ int claimHash(unsigned *keys, int *claims,
                                         unsigned h, int claimant) {
  int slot = static_cast<int>(h & (kTable - 1));
  for (;;) {
    const unsigned key = atomicCAS(keys + slot, kEmpty, h);
    if (key == kEmpty || key == h) {
      atomicMin(claims + slot, claimant);
      return slot;
    }
    slot = (slot + 1) & (kTable - 1);
  }
}

__device__ __forceinline__ bool sameState(const int *x, const int *y) {
  for (int i = 0; i < W; ++i)
    if (x[i] != y[i]) return false;
  return true;
}

/// Canonicalizes the yield st, stores it to out (shared) in one pass and
/// returns its hash.
__device__ __forceinline__ unsigned storeYield(int (&st)[W], int *out) {
  canonicalize(st);
#pragma unroll
  for (int w = 0; w < W; ++w) out[w] = st[w];
  return hashState(st);
}

/// Fact item i: θ(rest) into out and its hash into h. Returns false when the
/// fact does not match or is the candidate's own triple.
__device__ __forceinline__ bool factYield(const SlotPlan &pl, const int *g,
                                          int i, const int *facts,
                                          const int *poFacts, int *out,
                                          unsigned &h) {
  const int f = pl.factIndirect ? poFacts[pl.factBegin + i] : pl.factBegin + i;
  const int fp = facts[3 * f], fs = facts[3 * f + 1], fo = facts[3 * f + 2];
  if (fp == pl.ownP && fs == pl.ownS && fo == pl.ownO) return false;
  Subst th = {kUnbound, kUnbound, kUnbound, kUnbound};
  if (!unify(pl.s, fs, th, th.v0, th.t0) || !unify(pl.o, fo, th, th.v1, th.t1))
    return false;
  const int m = pl.n - 1;
  int st[W];
#pragma unroll
  for (int j = 0; j < A; ++j) { // goal j + 1 of G, or padding
    const bool goal = j < m;
    const int *a = g + 3 * (j + 1);
    st[3 * j] = goal ? a[0] : kPadPred;
    st[3 * j + 1] = goal ? walk(a[1], th) : 0;
    st[3 * j + 2] = goal ? walk(a[2], th) : 0;
  }
  h = storeYield(st, out);
  return true;
}

/// Rule item k: θ(body ++ rest) into out and its hash into h, the rule's
/// variables renamed apart (rule variable -j becomes -(nVars + j)). False
/// when the head does not unify or the result has more than A atoms.
__device__ __forceinline__ bool ruleYield(const SlotPlan &pl, const int *g,
                                          int k, const int *ruleHeads,
                                          const int *ruleBodyOffsets,
                                          const int *ruleBody,
                                          const int *ruleNumVars,
                                          const int *ruleIdsByPred, int *out,
                                          unsigned &h) {
  const int r = ruleIdsByPred[pl.ruleBegin + k];
  const int b0 = ruleBodyOffsets[r], len = ruleBodyOffsets[r + 1] - b0;
  const int m = len + pl.n - 1;
  if (m > A) return false;
  const int nv = pl.nVars + ruleNumVars[r];
  if (nv > kMaxVars) __trap(); // impossible for a usable rule (see kMaxVars)
  const int shift = pl.nVars;
  auto ren = [shift](int t) { return t < 0 ? t - shift : t; };
  Subst th = {kUnbound, kUnbound, kUnbound, kUnbound};
  if (!unify(ren(ruleHeads[3 * r + 1]), pl.s, th, th.v0, th.t0) ||
      !unify(ren(ruleHeads[3 * r + 2]), pl.o, th, th.v1, th.t1))
    return false;
  int st[W];
#pragma unroll
  for (int j = 0; j < A; ++j) { // body atom j, goal j - len + 1 of G, or pad
    int p = kPadPred, x = 0, y = 0;
    if (j < len) {
      const int *a = ruleBody + 3 * (b0 + j);
      p = a[0];
      x = ren(a[1]);
      y = ren(a[2]);
    } else if (j < m) {
      const int *a = g + 3 * (j - len + 1);
      p = a[0];
      x = a[1];
      y = a[2];
    }
    st[3 * j] = p;
    st[3 * j + 1] = walk(x, th);
    st[3 * j + 2] = walk(y, th);
  }
  h = storeYield(st, out);
  return true;
}

/// Thread 0: the item ranges of the slot (see SlotPlan).
__device__ void planSlot(SlotPlan &pl, const int *g, const int *cand,
                         const int *facts, const int *psOffsets,
                         const int *poOffsets, const int *predOffsets,
                         const int *rulePredOffsets, int E, int R) {
  pl.n = 0;
  while (pl.n < A && g[3 * pl.n] != kPadPred) ++pl.n;
  pl.nVars = 0;
  for (int i = 0; i < pl.n; ++i)
    for (int k = 1; k <= 2; ++k)
      if (-g[3 * i + k] > pl.nVars) pl.nVars = -g[3 * i + k];
  pl.p = g[0];
  pl.s = g[1];
  pl.o = g[2];
  pl.ownP = cand[1];
  pl.ownS = cand[0];
  pl.ownO = cand[2];
  pl.factBegin = pl.numFacts = pl.factIndirect = 0;
  pl.ruleBegin = pl.numRules = 0;
  pl.factsYieldOne = 1;
  // derive() is never called on TRUE/FALSE (or an empty state): such a slot
  // gets no items and so the result [FALSE].
  if (pl.n == 0 || pl.p < 0 || pl.p >= R) return;
  const int p = pl.p, s = pl.s, o = pl.o;
  // The rules' range first: its loads overlap the facts' below.
  const int ruleBegin = rulePredOffsets[p], ruleEnd = rulePredOffsets[p + 1];
  if (s >= 0) {
    const int lo = psOffsets[p * E + s], hi = psOffsets[p * E + s + 1];
    if (o >= 0) { // at most one fact: search o in the (p, s) range
      // Halve the range down to kScan facts, then read those at once: one
      // round trip for the usual short range, not one per halving. The
      // first fact with an object >= o is in [a, b] (b == hi: none).
      constexpr int kScan = 8;
      int a = lo, b = hi;
      while (b - a >= kScan) {
        const int mid = (a + b) >> 1;
        if (facts[3 * mid + 2] < o) a = mid + 1;
        else b = mid;
      }
      int objects[kScan];
      for (int j = 0; j < kScan; ++j)
        objects[j] = a + j < hi && a + j <= b ? facts[3 * (a + j) + 2] : o;
      int first = b, match = 0;
      for (int j = kScan - 1; j >= 0; --j)
        if (a + j < hi && a + j <= b && objects[j] >= o) {
          first = a + j;
          match = objects[j] == o;
        }
      pl.factBegin = first;
      pl.numFacts = match;
    } else {
      pl.factBegin = lo;
      pl.numFacts = hi - lo;
    }
  } else if (o >= 0) {
    pl.factBegin = poOffsets[p * E + o];
    pl.numFacts = poOffsets[p * E + o + 1] - pl.factBegin;
    pl.factIndirect = 1;
  } else {
    pl.factBegin = predOffsets[p];
    pl.numFacts = predOffsets[p + 1] - pl.factBegin;
  }
  pl.ruleBegin = ruleBegin;
  pl.numRules = ruleEnd - ruleBegin;
  for (int i = 1; i < pl.n; ++i)
    for (int k = 1; k <= 2; ++k) {
      const int t = g[3 * i + k];
      if (t < 0 && (t == s || t == o)) pl.factsYieldOne = 0;
    }
}

/// The whole block derives slot b in `scratch`: derived[b, ..] and
/// count[b] (0 for an empty slot). Called by every thread of the block;
/// returns block-uniformly. With kKeptInScratch (the persistent kernel,
/// PROOFC_ENGINE_KEPT_IN_SCRATCH): the state is already in scratch.sG,
/// and the result stays in scratch.sKept (the one state TRUE/FALSE
/// included), only count[b] is written.
__forceinline__ __device__ void deriveSlotIn(
    DeriveScratch &scratch, int b, const int *state,
    const int *slotCand, const int *pool, const int *facts,
    const int *psOffsets, const int *poFacts, const int *poOffsets,
    const int *predOffsets, const int *ruleHeads, const int *ruleBodyOffsets,
    const int *ruleBody, const int *ruleNumVars, const int *rulePredOffsets,
    const int *ruleIdsByPred, int E, int R, int *derived, int *count) {
  const int tid = threadIdx.x;
  const int cand = slotCand[b];
  if (cand < 0) {
    if (tid == 0) count[b] = 0;
    return;
  }

  SlotPlan &pl = scratch.pl;
#ifdef PROOFC_ENGINE_KEPT_IN_SCRATCH
  int *keptStates = scratch.sKept;
#else
  // The kept states go straight to the slot's derived rows; the block's
  // barriers make each thread's stores visible to the others.
  int *keptStates = derived + static_cast<long long>(b) * S * W;
#endif
  int *sG = scratch.sG, *sChunk = scratch.sChunk;
  unsigned *sKeptHash = scratch.sKeptHash, *sHash = scratch.sHash;
  int *sValid = scratch.sValid, *sScan = scratch.sScan,
      *sSource = scratch.sSource;
  unsigned *sTableKey = scratch.sTableKey;
  int *sTableClaim = scratch.sTableClaim;
  int &sKeptCount = scratch.sKeptCount, &sNext = scratch.sNext,
      &sDone = scratch.sDone, &sTrue = scratch.sTrue,
      &sFactHit = scratch.sFactHit;

  if (!kKeptInScratch)
    for (int i = tid; i < W; i += T) sG[i] = state[b * W + i];
  for (int i = tid; i < kTable; i += T) {
    sTableKey[i] = kEmpty;
    sTableClaim[i] = kNoClaim;
  }
  __syncthreads();
  if (tid == 0) {
    planSlot(pl, sG, pool + 3 * cand, facts, psOffsets, poOffsets, predOffsets,
             rulePredOffsets, E, R);
    sKeptCount = 0;
    sNext = 0;
    sTrue = 0;
    sFactHit = 0;
    sDone = pl.numFacts + pl.numRules == 0;
  }
  __syncthreads();

  while (!sDone) {
    const int base = sNext;
    const int i = base + tid;
    int *mine = sChunk + tid * W;
    int valid = 0;
    unsigned h = 0u;
    if (i < pl.numFacts) {
      if (factYield(pl, sG, i, facts, poFacts, mine, h)) {
        sFactHit = 1; // every writer stores 1
        valid = pl.n > 1; // a one-goal fact step is TRUE, never kept
      }
    } else if (i < pl.numFacts + pl.numRules) {
      valid = ruleYield(pl, sG, i - pl.numFacts, ruleHeads, ruleBodyOffsets,
                        ruleBody, ruleNumVars, ruleIdsByPred, mine, h);
    }
    if (!valid) h = 0u;
    sHash[tid] = h;
    sValid[tid] = valid;
    const int slot = valid ? claimHash(sTableKey, sTableClaim, h, tid) : 0;
    __syncthreads();

    // Drop a yield seen before: in the kept states or earlier in the chunk.
    int keep = valid;
    const int kept = sKeptCount;
    const int claim = valid ? sTableClaim[slot] : tid;
    if (claim != tid) {
      const int *first =
          claim < 0 ? keptStates + (-claim - 1) * W : sChunk + claim * W;
      if (sameState(first, mine)) {
        keep = 0;
      } else { // two states share the hash: compare with every earlier one
        for (int j = 0; keep && j < tid; ++j)
          if (sValid[j] && sHash[j] == h && sameState(sChunk + j * W, mine))
            keep = 0;
        for (int k = 0; keep && k < kept; ++k)
          if (sKeptHash[k] == h && sameState(keptStates + k * W, mine)) keep = 0;
      }
    }

    // Inclusive scan of keep (Hillis-Steele; no warp intrinsics, see top).
    sScan[tid] = keep;
    __syncthreads();
    for (int off = 1; off < T; off <<= 1) {
      const int add = tid >= off ? sScan[tid - off] : 0;
      __syncthreads();
      sScan[tid] += add;
      __syncthreads();
    }
    const int pos = kept + sScan[tid] - keep;
    if (keep && pos < S) {
      // In shared memory (the persistent kernel) a thread stores its own
      // state: no sectors to fill, and no second barrier.
      if (kKeptInScratch)
        for (int w = 0; w < W; ++w) keptStates[pos * W + w] = mine[w];
      sKeptHash[pos] = h;
      // Later chunks find the kept state (every claim was read above).
      if (claim == tid) sTableClaim[slot] = -(pos + 1);
      if (!kKeptInScratch) sSource[pos - kept] = tid; // every sHash was read
    }
    __syncthreads();
    const int total = kept + sScan[T - 1];
    if (!kKeptInScratch) {
      // derived[b] in global memory: the chunk's kept states a word a
      // thread, consecutive threads consecutive words, so that a store
      // instruction writes whole sectors (a thread storing its own state
      // wrote one word in each of 32: 8x the L2 traffic; row 50).
      const int stored = (total < S ? total : S) - kept;
      for (int i = tid; i < stored * W; i += T) {
        const int j = i / W, w = i - j * W;
        keptStates[(kept + j) * W + w] = sChunk[sSource[j] * W + w];
      }
      __syncthreads();
    }

    if (tid == 0) {
      sKeptCount = total < S ? total : S;
      int next = base + T;
      if (sFactHit && pl.n == 1) {
        sTrue = 1;
        sDone = 1;
      } else {
        // After one fact success every other fact step repeats it.
        if (sFactHit && pl.factsYieldOne && next < pl.numFacts)
          next = pl.numFacts;
        sNext = next;
        sDone = sKeptCount == S || next >= pl.numFacts + pl.numRules;
      }
    }
    __syncthreads();
  }

  if (sTrue || sKeptCount == 0) {
    if (tid == 0) {
      keptStates[0] = sTrue ? R : R + 1;
      keptStates[1] = 0;
      keptStates[2] = 0;
      for (int a = 1; a < A; ++a) {
        keptStates[3 * a] = kPadPred;
        keptStates[3 * a + 1] = 0;
        keptStates[3 * a + 2] = 0;
      }
      count[b] = 1;
    }
    return;
  }
  if (tid == 0) count[b] = sKeptCount;
}

#ifndef PROOFC_ENGINE_SCRATCH_FROM_CALLER
static_assert(
    4 * kScratchWords <= 48 * 1024,
    "engine.cu: S and A too large for 48 KiB of static shared memory");

/// deriveSlotIn in the block's static shared memory. Not inlined:
/// proofc_engine and step.cu's proofc_advance_engine share one copy, which
/// keeps the cold NVRTC compile of the module short.
__noinline__ __device__ void deriveSlot(
    int b, const int *state, const int *slotCand, const int *pool,
    const int *facts, const int *psOffsets, const int *poFacts,
    const int *poOffsets, const int *predOffsets, const int *ruleHeads,
    const int *ruleBodyOffsets, const int *ruleBody, const int *ruleNumVars,
    const int *rulePredOffsets, const int *ruleIdsByPred, int E, int R,
    int *derived, int *count) {
  __shared__ DeriveScratch scratch;
  deriveSlotIn(scratch, b, state, slotCand, pool, facts, psOffsets,
               poFacts, poOffsets, predOffsets, ruleHeads, ruleBodyOffsets,
               ruleBody, ruleNumVars, rulePredOffsets, ruleIdsByPred, E, R,
               derived, count);
}
#endif

} // namespace proofc_engine_impl

#if !defined(PROOFC_ENGINE_SCRATCH_FROM_CALLER) && \
    PROOFC_HAS_ENTRY(proofc_engine)
extern "C" __global__ void
proofc_engine(PROOFC_ABI_PARAMS(PROOFC_ABI_ENGINE_ARGS)) {
  if (*guard == 0) return;
  proofc_engine_impl::deriveSlot(
      blockIdx.x, state, slotCand, pool, facts, psOffsets, poFacts, poOffsets,
      predOffsets, ruleHeads, ruleBodyOffsets, ruleBody, ruleNumVars,
      rulePredOffsets, ruleIdsByPred, E, R, derived, count);
}
#endif

#endif // PROOFC_ENGINE_CU
