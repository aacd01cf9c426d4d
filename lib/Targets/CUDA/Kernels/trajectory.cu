//===- trajectory.cu - A rollout's steps recorded on the device ------------===//
//
// A rollout (docs/rollouts.md) returns, per step, the state the action was
// chosen from and the derived states it was chosen among, as indices into a
// table of the batch's distinct states, so that the learner encodes each
// state once. Recording them where the step is computed, with the states
// deduplicated as they come, costs one hash insert per state of the step by
// the slot's whole block (one thread per state, parallel), and the states
// never leave the device; the alternative, writing every step's derived
// list out (k x 3A words per step, up to 8.6 KB at V10) and deduplicating
// after the run by sort/unique, writes every occurrence of every state and
// sorts them. docs/rollouts-cuda.md weighs the two.
//
// The table: `entries` (a power of two) entries of kernel_abi.h's
// trajectoryEntryWords(A) words, open addressing with linear probing,
// zero-filled before the run:
//   [0] the state's hash (engine.cu's hashState, never 0; 0: empty),
//   [1] 1 once the state words are written (published),
//   [2] 0xFFFFFFFF - the state's first use (atomicMax: the smallest use),
//   [3, 3+W) the state.
// A state's "use" is where it occurs in the batch's dense step rows:
// (q * D + t) * (S + 1) + p for episode q's step t, p = 0 for the state
// the step was taken from and 1 + i for derived state i. The first use is
// a function of the trajectories only, not of the order the slots ran in,
// so the finishing pass (runtime/src/cuda/kernels/trajectory.cu) can number
// the states in order of first use, deterministically, and compact the
// dense rows into the step arrays (the host backend's order: docs/
// rollouts.md).
//
// Dense rows, written here: row r = q * D + t of episode q's step t (t <
// D): stepState[r], stepDerived[r * S + i] (i < count; the rest is never
// read), stepCount[r], stepAction[r], stepLogp[r]; entry indices, not
// state numbers, until the finishing pass maps them.
//
// Plain CUDA C++, no includes of its own: include engine.cu (its state
// hash) first. Compiled by NVRTC inside the step templates and by the unit
// tests through the CPU shim (one block at a time: an entry is published by
// its claimer before any other thread runs, so the wait below never spins).
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_TRAJECTORY_CU
#define PROOFC_TRAJECTORY_CU

#ifndef PROOFC_ENGINE_CU
#error "trajectory.cu: include engine.cu first (its state hash; template includes do not nest)"
#endif

namespace proofc_traj {

constexpr int A = proofc_engine_impl::A;
constexpr int S = proofc_engine_impl::S;
constexpr int W = proofc_engine_impl::W;
constexpr int kEntryWords = proofc_abi::trajectoryEntryWords(A);
static_assert(kEntryWords == 3 + W, "trajectory.cu: entry layout");

/// Where a rollout's steps go (the dense rows above) and its state table.
struct Recorder {
  int *table;        // [entries][kEntryWords], zero-filled
  int entries;       // a power of two
  int *overflow;     // int[1]: set to 1 when a state found no entry
  int D;             // max depth: rows per episode
  int *stepState;    // [N * D]
  int *stepDerived;  // [N * D * S]
  int *stepCount;    // [N * D]
  int *stepAction;   // [N * D]
  float *stepLogp;   // [N * D]
};

__device__ __forceinline__ int volatileLoad(const int *p) {
  return *static_cast<const volatile int *>(p);
}

/// The longest probe sequence an insert walks before it calls the table
/// full. Linear probing's expected walk is (1 + 1/(1-a)^2)/2 entries at load
/// a (about 50 at a = 0.9), so a walk this long means the table is nearly
/// full: growing it (the runtime doubles it and runs the call again) is
/// cheaper than walking on, and without the bound a full table made every
/// later insert walk the whole table (a kinship batch's call took 100 s
/// instead of 10 ms). An early overflow only costs a rerun with a larger
/// table: the recorded trajectories do not depend on the table's size.
constexpr unsigned kMaxProbes = 256;

/// The entry of state `st` (claimed if new), its first use lowered to
/// `use`; -1 when the table is full (and *overflow = 1): at the first walk
/// past kMaxProbes, and at once for every insert after that (the call's
/// trajectories are discarded, so nothing more is worth recording).
__device__ __forceinline__ int insertState(const Recorder &rec, const int *st,
                                           unsigned use) {
  if (volatileLoad(rec.overflow) != 0) return -1;
  const unsigned h = proofc_engine_impl::hashState(st);
  const unsigned mask = static_cast<unsigned>(rec.entries) - 1u;
  const unsigned firstUse = 0xFFFFFFFFu - use;
  const unsigned probes = mask < kMaxProbes ? mask : kMaxProbes;
  unsigned slot = h & mask;
  for (unsigned probe = 0; probe <= probes; ++probe, slot = (slot + 1) & mask) {
    int *e = rec.table + static_cast<long long>(slot) * kEntryWords;
    // A plain load first: an entry of another hash is passed without an
    // atomic (most of a walk's entries in a well-filled table).
    const unsigned seen = static_cast<unsigned>(volatileLoad(e));
    if (seen != 0u && seen != h) continue;
    const unsigned old =
        seen != 0u ? seen : atomicCAS(reinterpret_cast<unsigned *>(e), 0u, h);
    if (old == 0u) {
      for (int w = 0; w < W; ++w) e[3 + w] = st[w];
      atomicMax(reinterpret_cast<unsigned *>(e + 2), firstUse);
      __threadfence();
      atomicExch(e + 1, 1);
      return static_cast<int>(slot);
    }
    if (old != h) continue;
    while (volatileLoad(e + 1) == 0) {
    }
    __threadfence();
    bool same = true;
    for (int w = 0; w < W; ++w) same = same && volatileLoad(e + 3 + w) == st[w];
    if (same) {
      atomicMax(reinterpret_cast<unsigned *>(e + 2), firstUse);
      return static_cast<int>(slot);
    }
  }
  atomicExch(rec.overflow, 1);
  return -1;
}

/// Records episode q's step t: the state it was taken from (`parent`, W
/// words), its `count` derived states (count x W words, in list order), the
/// action and its log-probability. Called by every thread of the slot's
/// block before the advance (which may overwrite `parent` and `derived`):
/// the barrier at the end orders the two.
__device__ __forceinline__ void recordStep(const Recorder &rec,
                                           const int *parent,
                                           const int *derived, int count,
                                           int action, float logp, int q,
                                           int t) {
  const long long r = static_cast<long long>(q) * rec.D + t;
  const unsigned useBase = static_cast<unsigned>(r * (S + 1));
  for (int p = static_cast<int>(threadIdx.x); p <= count;
       p += static_cast<int>(blockDim.x)) {
    const int *st = p == 0 ? parent : derived + (p - 1) * W;
    const int e = insertState(rec, st, useBase + static_cast<unsigned>(p));
    if (p == 0)
      rec.stepState[r] = e;
    else
      rec.stepDerived[r * S + (p - 1)] = e;
  }
  if (threadIdx.x == 0) {
    rec.stepCount[r] = count;
    rec.stepAction[r] = action;
    rec.stepLogp[r] = logp;
  }
  __syncthreads();
}

} // namespace proofc_traj

#endif // PROOFC_TRAJECTORY_CU
