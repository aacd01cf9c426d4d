//===- advance.cu - The end of a slot's step: transition, terminal, recycle -===//
//
// advanceSlot (spec §5) moves slot b to the state the policy chose,
// accumulates the log-probability, applies the terminal check (TRUE, FALSE,
// max depth), writes the outcome of a finished candidate and refills the
// slot from the pool with an atomic counter; with the step memo (memo.cu)
// it goes on through the steps the memo knows. step.cu's kernels and
// slot.cu's persistent slot function call it; it touches no graph API, so
// slot.cu can be compiled as relocatable device code without the device
// runtime.
//
// Plain CUDA C++ with no includes, compiled by NVRTC with -DPROOFC_A=..
// and -DPROOFC_S=.. (the compiler embeds it where a template includes it).
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_ADVANCE_CU
#define PROOFC_ADVANCE_CU

#ifndef PROOFC_MEMO_CU
#error "advance.cu: include memo.cu first (template includes do not nest)"
#endif

#ifndef PROOFC_A
#error "advance.cu: compile with -DPROOFC_A=<max atoms per state>"
#endif
#ifndef PROOFC_S
#error "advance.cu: compile with -DPROOFC_S=<max derived states>"
#endif

/// The memo hits one advance takes before the slot pauses its walk
/// (advanceSlot; only where slots may wait, PROOFC_MEMO_WAITS > 0). 8 was
/// the fastest of 2-16 on V10 (docs/performance.md, row 56); the kernel
/// tests set 1 so that every walk pauses.
#ifndef PROOFC_MEMO_WALK_HITS
#define PROOFC_MEMO_WALK_HITS 8
#endif

namespace proofc_step {

constexpr int A = PROOFC_A;
constexpr int S = PROOFC_S;
constexpr int W = 3 * A;
constexpr int kPadPred = -1;
enum Status { kProved = 0, kFailed = 1, kTruncated = 2 };

/// Slot b's entries in the step policy list from `entry` on (kernel_abi.h's
/// PolicyEntryWord): one a part, its every-slot block b + part x B and the
/// slot's `children`. The advance in the policy's listings (slot.cu,
/// step.cu's proofc_list_slots) write them so.
__device__ __forceinline__ void writePolicyEntries(int *entry, int b,
                                                   int parts, int children,
                                                   int B) {
  for (int part = 0; part < parts; ++part) {
    entry[proofc_abi::kPolicyEntryBlock] = b + part * B;
    entry[proofc_abi::kPolicyEntryCount] = children;
    entry += proofc_abi::kPolicyEntryWords;
  }
}

/// Word i of the start state canon([(r, h, t)]) of a candidate (h, r, t):
/// the triple is ground, padding atoms after it (0 from W on: a warp's
/// lanes past the state).
__device__ __forceinline__ int startWord(int i, int h, int r, int t) {
  return i == 0   ? r
         : i == 1 ? h
         : i == 2 ? t
         : i < W && i % 3 == 0 ? kPadPred
                               : 0;
}

/// The start state of candidate c.
__device__ __forceinline__ void startState(int *st, const int *pool, int c) {
  const int h = pool[3 * c], r = pool[3 * c + 1], t = pool[3 * c + 2];
  for (int i = 0; i < W; ++i) st[i] = startWord(i, h, r, t);
}

/// Candidate c's triple (h, r, t), which keys the memo's relevant steps.
__device__ __forceinline__ void candidateTriple(const int *pool, int c, int &h,
                                                int &r, int &t) {
  h = pool[3 * c];
  r = pool[3 * c + 1];
  t = pool[3 * c + 2];
}

/// memoClaims[b] (0 with the memo off): the entry the slot claimed, plus one,
/// in `claim`, or, where the word is negative, the steps it has waited in
/// `waits` (advanceSlot); the other is 0.
__device__ __forceinline__ void readClaim(const int *memoClaims, int b,
                                          int memoEntries, int &claim,
                                          int &waits) {
  claim = memoEntries > 0 ? memoClaims[b] : 0;
  waits = claim < 0 ? -claim : 0;
  if (waits) claim = 0;
}

/// The word memoClaims[b] keeps after an advance: the steps waited,
/// negative, or the claim.
__device__ __forceinline__ int claimWord(int waited, int claim) {
  return waited ? -waited : claim;
}

/// Spec §5's terminal check after a step to a state whose first predicate
/// is `pred`, at depth d: the status the candidate ends with, or -1.
__device__ __forceinline__ int terminalStatus(int pred, int d, int R, int D) {
  return pred == R       ? kProved
         : pred == R + 1 ? kFailed
         : d >= D        ? kTruncated
                         : -1;
}

/// Writes the outcome of candidate c and takes the next one from the pool:
/// its index, or -1 when the pool is empty.
__device__ __forceinline__ int finishCandidate(int c, int status, int d,
                                               float lp, int N, int *nextCand,
                                               int *outStatus, int *outDepth,
                                               float *outLogp) {
  outStatus[c] = status;
  outDepth[c] = d;
  outLogp[c] = lp;
  const int next = atomicAdd(nextCand, 1);
  return next < N ? next : -1;
}

/// A slot's state as one thread holds it, all W words in registers: slot.cu's
/// persistent slot function (whose `kept`, the slot's derived states in
/// shared memory, are read instead of derived[b], and whose `stateCopy` gets
/// the new state instead of state[b]: nothing reads state[b] there after the
/// kernel's first copy), and the step schedule's advance-engine where a
/// key's words outnumber a warp's lanes. advanceSlot's walk calls these; a
/// walk's leader writes the slot's scalars.
struct ThreadWalk {
  const int *kept = nullptr;
  int *stateCopy = nullptr;
  int words[W];

  __device__ __forceinline__ bool leader() const { return true; }
  /// The leader's v (here the thread's own).
  __device__ __forceinline__ int uniform(int v) const { return v; }
  /// The state the policy chose: action a of slot b.
  __device__ __forceinline__ void loadChosen(const int *derived, int b,
                                             int a) {
    // All loads first, then the stores: the compiler cannot tell that
    // state and derived do not overlap, so a load-store loop would wait
    // for each load in turn (W round trips to L2 instead of one).
    const int *chosen = kept ? kept + a * W
                             : derived + (static_cast<long long>(b) * S + a) * W;
    for (int w = 0; w < W; ++w) words[w] = chosen[w];
  }
  /// The state the slot holds (it waited: no action to apply).
  __device__ __forceinline__ void loadHeld(const int *state, int b) {
    const int *held = state + b * W;
    for (int w = 0; w < W; ++w) words[w] = held[w];
  }
  __device__ __forceinline__ int firstPred() const { return words[0]; }
  /// Candidate c's start state; (h, r, t) its triple.
  __device__ __forceinline__ void start(const int *pool, int c, int &h, int &r,
                                        int &t) {
    startState(words, pool, c);
    r = words[0];
    h = words[1];
    t = words[2];
  }
  __device__ __forceinline__ void publish(int *memo, int claim, float step,
                                          int stepAction, bool record) const {
    proofc_memo::publish(memo, claim, words, step, stepAction, record);
  }
  /// The chosen state of a memo hit.
  struct Next {
    int words[W];
  };
  /// The memo's key of this state for candidate (h, r, t).
  __device__ __forceinline__ proofc_memo::Key key(int h, int r, int t) const {
    return proofc_memo::makeKey(words, h, r, t);
  }
  /// The memo's step from this state (memo.cu's lookup): on a hit, true and
  /// the chosen state in `next`.
  __device__ __forceinline__ bool lookup(int *memo, unsigned mask,
                                         const proofc_memo::Key &key,
                                         Next &next, float &step,
                                         int &stepAction, bool record,
                                         int &claim, bool &pending) const {
    return proofc_memo::lookup(memo, mask, words, key, next.words, step,
                               stepAction, record, claim, pending);
  }
  /// Moves to the chosen state of a hit.
  __device__ __forceinline__ void take(const Next &next) {
    for (int w = 0; w < W; ++w) words[w] = next.words[w];
  }
  __device__ __forceinline__ void store(int *state, int b) const {
    int *st = stateCopy ? stateCopy : state + b * W;
    for (int w = 0; w < W; ++w) st[w] = words[w];
  }
};

#if PROOFC_WARP_MEMO
/// A slot's state as the 32 lanes of one warp hold it, lane i word i (0 past
/// W), with memo.cu's warp lookups: the step schedule's fused advance-engine
/// (step.cu), whose block derives after it. Every lane walks alike, with the
/// same slot; lane 0 leads (the outcome, the slot's depth, log-probability,
/// candidate and claim, the actions). Why a warp: the thread's walk holds
/// the state, the next state and a whole entry in registers, 120 a thread
/// where the derive needs 43-47, which left the advance-engine 16 blocks an
/// SM (docs/performance.md, "The advance-engine by Nsight Compute"); a lane
/// holds a word of each. The slot's steps, outcome and stores are the
/// thread walk's bit for bit (the emulated plans and the GPU tests compare
/// them with the host backend).
struct WarpWalk {
  int lane = proofc_memo::laneId();
  unsigned factor = proofc_engine_impl::hashFactor(lane); // of word `lane`
  int word = 0; // the state's word `lane` (0 past W)

  __device__ __forceinline__ bool leader() const { return lane == 0; }
  /// The leader's v, in every lane.
  __device__ __forceinline__ int uniform(int v) const {
    return proofc_memo::fromLane(v, 0);
  }
  __device__ __forceinline__ void loadChosen(const int *derived, int b,
                                             int a) {
    if (lane < W) word = derived[(static_cast<long long>(b) * S + a) * W + lane];
  }
  __device__ __forceinline__ void loadHeld(const int *state, int b) {
    if (lane < W) word = state[b * W + lane];
  }
  __device__ __forceinline__ int firstPred() const {
    return proofc_memo::fromLane(word, 0);
  }
  __device__ __forceinline__ void start(const int *pool, int c, int &h, int &r,
                                        int &t) {
    candidateTriple(pool, c, h, r, t);
    word = startWord(lane, h, r, t);
  }
  __device__ __forceinline__ void publish(int *memo, int claim, float step,
                                          int stepAction, bool record) const {
    proofc_memo::publishWarp(memo, claim, word, step, stepAction, record);
  }
  /// The chosen state's word `lane` of a memo hit.
  struct Next {
    int word = 0;
  };
  __device__ __forceinline__ proofc_memo::Key key(int h, int r, int t) const {
    return proofc_memo::makeKeyWarp(word, factor, h, r, t);
  }
  __device__ __forceinline__ bool lookup(int *memo, unsigned mask,
                                         const proofc_memo::Key &key,
                                         Next &next, float &step,
                                         int &stepAction, bool record,
                                         int &claim, bool &pending) const {
    return proofc_memo::lookupWarp(memo, mask, word, key, next.word, step,
                                   stepAction, record, claim, pending);
  }
  __device__ __forceinline__ void take(const Next &next) { word = next.word; }
  __device__ __forceinline__ void store(int *state, int b) const {
    if (lane < W) state[b * W + lane] = word;
  }
};
#endif // PROOFC_WARP_MEMO

/// Ends the step of slot b, whose state `walk` holds (a ThreadWalk, or a
/// warp's WarpWalk, every lane calling with the same b): the state the
/// policy chose, then (memo on, memoEntries > 0) every step the memo knows
/// (memo.cu), while the slot's state, depth and log-probability stay in
/// registers. A slot whose step missed has claimed an entry (memoClaims[b]);
/// this publishes the policy's choice into it first. Returns 1 when the slot
/// holds an active candidate afterwards (the same one, or the next from the
/// pool). With actionsD > 0 (the run records the actions, docs/proofs.md)
/// every step the slot takes, computed or from the memo, writes its action
/// to outActions[c * actionsD + depth before the step]; with 0, nothing.
///
/// Compiled with -DPROOFC_MEMO_WAITS=n > 0 (the step schedule's fused
/// advance-engine, `memo-max-waits`): a slot whose step another slot is
/// computing (memo.cu's `pending`) waits for it instead of computing it
/// again: it keeps its state, memoClaims[b] = -(steps waited), and the
/// caller derives nothing for it (count[b] = 0, so the policy encodes
/// nothing); its next advance looks the state up again, and after n waits
/// it computes the step itself. The claimer publishes at its next advance,
/// so a wait is one step, two when the claimer's block runs later in that
/// kernel. With n = 0 every wait branch folds away: the machine code is
/// byte for byte what it was before waits existed (ptxas sm_90: the
/// advance module with and without -maxrregcount, slot.cu, step.cu), and
/// with n = 2 what docs/performance.md row 30 measured. slot.cu is compiled
/// without waits: a persistent slot goes at its block's own pace, and
/// waiting would hold the block. With `mayWait` false a slot does not wait
/// this step (the step before the tail hand-off, step.cu): a slot that
/// waited resumes at its state's lookup and computes the step itself.
///
/// With waits, a walk also pauses after PROOFC_MEMO_WALK_HITS hits: the
/// slot waits a step at the state it reached (memoClaims[b] = -1, counted
/// as one of that state's waits) and resumes the walk at its next advance.
/// A launch lasts as long as its slowest slot, and in V10's full steps that
/// was a walk of 15-19 hits (~55 k cycles); the steps the slot takes, and
/// so every outcome, are the same, only spread over more launches.
template <typename Walk>
__device__ __forceinline__ int advanceSlot(
    Walk &walk, int b, const int *pool, int N, int D, int R,
    const int *derived, const int *count, const int *action,
    const float *actionLogp, int *state, int *slotCand, int *depth,
    float *logp, int *nextCand, int *outStatus, int *outDepth, float *outLogp,
    int *outActions, int actionsD, int *memo, int *memoClaims,
    int memoEntries, bool mayWait = true) {
  constexpr int kMaxWaits = PROOFC_MEMO_WAITS;
  int c = slotCand[b];
  if (c < 0) return 0;
  // A waiting slot (memoClaims[b] < 0) resumes at its state's lookup: no
  // action to apply. Without waits the claim is read after the step's
  // loads, as it always was.
  int claim = 0, waits = 0;
  if (kMaxWaits > 0) readClaim(memoClaims, b, memoEntries, claim, waits);
  bool apply = waits == 0;
  float step = 0.f;
  int stepAction = 0;
  if (apply) {
    const int a = action[b];
    if (a < 0 || a >= count[b]) __trap(); // the policy broke its contract
    walk.loadChosen(derived, b, a);
    step = actionLogp[b];
    stepAction = a;
  } else {
    walk.loadHeld(state, b);
  }
  const bool record = actionsD > 0;
  float lp = logp[b];
  int d = depth[b];
  // The candidate's triple keys the memo's relevant steps: read only with
  // the memo on.
  int h = 0, r = 0, t = 0;
  if (memoEntries > 0) candidateTriple(pool, c, h, r, t);
  const unsigned mask = static_cast<unsigned>(memoEntries) - 1u;
  if (kMaxWaits == 0) claim = memoEntries > 0 ? memoClaims[b] : 0;
  if (claim) walk.publish(memo, claim, step, stepAction, record);
  const int cand0 = c;
  int active = 1;
  int waited = 0; // memoClaims[b]'s wait count when the slot waits now
  int hits = 0;   // the memo's steps this advance has taken
  for (;;) {
    if (apply) {
      if (record && walk.leader())
        outActions[static_cast<long long>(c) * actionsD + d] = stepAction;
      lp += step;
      ++d;
      const int status = terminalStatus(walk.firstPred(), d, R, D);
      if (status >= 0) {
        int next = 0;
        if (walk.leader())
          next = finishCandidate(c, status, d, lp, N, nextCand, outStatus,
                                 outDepth, outLogp);
        c = walk.uniform(next);
        if (c < 0) {
          active = 0;
          claim = 0;
          break;
        }
        walk.start(pool, c, h, r, t);
        d = 0;
        lp = 0.f;
      }
      // A start state is its candidate's own: nothing to share.
      if (memoEntries <= 0 || d == 0) {
        claim = 0;
        break;
      }
      waits = 0; // a new state: its own waits
      // A long walk pauses: the slot waits a step, as for a pending step,
      // and its next advance resumes at this state's lookup.
      if (kMaxWaits > 0 && mayWait && hits >= PROOFC_MEMO_WALK_HITS) {
        waited = 1;
        claim = 0;
        break;
      }
    }
    apply = true;
    const proofc_memo::Key key = walk.key(h, r, t);
    typename Walk::Next next;
    bool pending = false;
    if (!walk.lookup(memo, mask, key, next, step, stepAction, record, claim,
                     pending)) {
      if (pending && waits < kMaxWaits && mayWait) waited = waits + 1;
      break;
    }
    walk.take(next);
    ++hits;
  }
  walk.store(state, b);
  if (walk.leader()) {
    depth[b] = d;
    logp[b] = lp;
    if (c != cand0) slotCand[b] = c;
    if (memoEntries > 0) memoClaims[b] = claimWord(waited, claim);
  }
  return active;
}
} // namespace proofc_step

#endif // PROOFC_ADVANCE_CU
