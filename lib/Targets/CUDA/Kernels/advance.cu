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

namespace proofc_step {

constexpr int A = PROOFC_A;
constexpr int S = PROOFC_S;
constexpr int W = 3 * A;
constexpr int kPadPred = -1;
enum Status { kProved = 0, kFailed = 1, kTruncated = 2 };

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

/// Ends the step of slot b: the state the policy chose, then (memo on,
/// memoEntries > 0) every step the memo knows (memo.cu), while the slot's
/// state, depth and log-probability stay in registers. A slot whose step
/// missed has claimed an entry (memoClaims[b]); this publishes the policy's
/// choice into it first. Returns 1 when the slot holds an active candidate
/// afterwards (the same one, or the next from the pool). Thread 0 of a
/// block, or one thread per slot. The persistent kernel's slot function
/// passes `kept`, the slot's derived states in shared memory (read instead
/// of derived[b]), and `stateCopy`, which gets the new state instead of
/// state[b] (nothing reads state[b] there after the kernel's first copy).
/// With actionsD > 0 (the run records the actions, docs/proofs.md) every
/// step the slot takes, computed or from the memo, writes its action to
/// outActions[c * actionsD + depth before the step]; with 0, nothing.
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
__device__ __forceinline__ int advanceSlot(
    int b, const int *pool, int N, int D, int R, const int *derived,
    const int *count, const int *action, const float *actionLogp, int *state,
    int *slotCand, int *depth, float *logp, int *nextCand, int *outStatus,
    int *outDepth, float *outLogp, int *outActions, int actionsD, int *memo,
    int *memoClaims, int memoEntries, const int *kept = nullptr,
    int *stateCopy = nullptr, bool mayWait = true) {
  constexpr int kMaxWaits = PROOFC_MEMO_WAITS;
  int c = slotCand[b];
  if (c < 0) return 0;
  // A waiting slot (memoClaims[b] < 0) resumes at its state's lookup: no
  // action to apply. Without waits the claim is read after the step's
  // loads, as it always was.
  int claim = 0, waits = 0;
  if (kMaxWaits > 0) readClaim(memoClaims, b, memoEntries, claim, waits);
  bool apply = waits == 0;
  int words[W];
  float step = 0.f;
  int stepAction = 0;
  if (apply) {
    const int a = action[b];
    if (a < 0 || a >= count[b]) __trap(); // the policy broke its contract
    // All loads first, then the stores: the compiler cannot tell that
    // state and derived do not overlap, so a load-store loop would wait
    // for each load in turn (W round trips to L2 instead of one).
    const int *chosen = kept ? kept + a * W
                             : derived + (static_cast<long long>(b) * S + a) * W;
    for (int w = 0; w < W; ++w) words[w] = chosen[w];
    step = actionLogp[b];
    stepAction = a;
  } else {
    const int *held = state + b * W;
    for (int w = 0; w < W; ++w) words[w] = held[w];
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
  if (claim) proofc_memo::publish(memo, claim, words, step, stepAction, record);
  const int cand0 = c;
  int active = 1;
  int waited = 0; // memoClaims[b]'s wait count when the slot waits now
  for (;;) {
    if (apply) {
      if (record)
        outActions[static_cast<long long>(c) * actionsD + d] = stepAction;
      lp += step;
      ++d;
      const int status = terminalStatus(words[0], d, R, D);
      if (status >= 0) {
        c = finishCandidate(c, status, d, lp, N, nextCand, outStatus,
                            outDepth, outLogp);
        if (c < 0) {
          active = 0;
          claim = 0;
          break;
        }
        startState(words, pool, c);
        r = words[0];
        h = words[1];
        t = words[2];
        d = 0;
        lp = 0.f;
      }
      // A start state is its candidate's own: nothing to share.
      if (memoEntries <= 0 || d == 0) {
        claim = 0;
        break;
      }
      waits = 0; // a new state: its own waits
    }
    apply = true;
    const proofc_memo::Key key = proofc_memo::makeKey(words, h, r, t);
    int next[W];
    bool pending = false;
    if (!proofc_memo::lookup(memo, mask, words, key, next, step, stepAction,
                             record, claim, pending)) {
      if (pending && waits < kMaxWaits && mayWait) waited = waits + 1;
      break;
    }
    for (int w = 0; w < W; ++w) words[w] = next[w];
  }
  int *st = stateCopy ? stateCopy : state + b * W;
  for (int w = 0; w < W; ++w) st[w] = words[w];
  depth[b] = d;
  logp[b] = lp;
  if (c != cand0) slotCand[b] = c;
  if (memoEntries > 0) memoClaims[b] = claimWord(waited, claim);
  return active;
}
#if PROOFC_WARP_MEMO
/// advanceSlot by the 32 lanes of one warp (every lane calls it, with the
/// same b): the step schedule's fused advance-engine (step.cu), whose block
/// derives after it. Lane i holds word i of the slot's state and the memo's
/// lookups are memo.cu's warp functions; lane 0 writes the scalars (the
/// outcome, the slot's depth, log-probability, candidate and claim, the
/// actions), every lane computes them alike. Why a warp: the thread's walk
/// holds the state, the next state and a whole entry in registers, 120 a
/// thread where the derive needs 43-47, which left the advance-engine 16
/// blocks an SM (docs/performance.md, "The advance-engine by Nsight
/// Compute"); a lane holds a word of each. The slot's steps, outcome and
/// stores are advanceSlot's bit for bit (the emulated plans and the GPU
/// tests compare them with the host backend).
__device__ __forceinline__ int advanceSlotWarp(
    int b, const int *pool, int N, int D, int R, const int *derived,
    const int *count, const int *action, const float *actionLogp, int *state,
    int *slotCand, int *depth, float *logp, int *nextCand, int *outStatus,
    int *outDepth, float *outLogp, int *outActions, int actionsD, int *memo,
    int *memoClaims, int memoEntries, bool mayWait = true) {
  using proofc_memo::fromLane;
  constexpr int kMaxWaits = PROOFC_MEMO_WAITS;
  const int lane = proofc_memo::laneId();
  int c = slotCand[b];
  if (c < 0) return 0;
  int claim = 0, waits = 0;
  if (kMaxWaits > 0) readClaim(memoClaims, b, memoEntries, claim, waits);
  bool apply = waits == 0;
  int word = 0; // the state's word `lane` (0 past W)
  float step = 0.f;
  int stepAction = 0;
  if (apply) {
    const int a = action[b];
    if (a < 0 || a >= count[b]) __trap(); // the policy broke its contract
    if (lane < W) word = derived[(static_cast<long long>(b) * S + a) * W + lane];
    step = actionLogp[b];
    stepAction = a;
  } else if (lane < W) {
    word = state[b * W + lane];
  }
  const bool record = actionsD > 0;
  float lp = logp[b];
  int d = depth[b];
  int h = 0, r = 0, t = 0;
  if (memoEntries > 0) candidateTriple(pool, c, h, r, t);
  const unsigned mask = static_cast<unsigned>(memoEntries) - 1u;
  const unsigned factor = proofc_engine_impl::hashFactor(lane);
  if (kMaxWaits == 0) claim = memoEntries > 0 ? memoClaims[b] : 0;
  if (claim)
    proofc_memo::publishWarp(memo, claim, word, step, stepAction, record);
  const int cand0 = c;
  int active = 1;
  int waited = 0;
  for (;;) {
    if (apply) {
      if (record && lane == 0)
        outActions[static_cast<long long>(c) * actionsD + d] = stepAction;
      lp += step;
      ++d;
      const int status = terminalStatus(fromLane(word, 0), d, R, D);
      if (status >= 0) {
        int next = 0;
        if (lane == 0)
          next = finishCandidate(c, status, d, lp, N, nextCand, outStatus,
                                 outDepth, outLogp);
        c = fromLane(next, 0);
        if (c < 0) {
          active = 0;
          claim = 0;
          break;
        }
        candidateTriple(pool, c, h, r, t);
        word = startWord(lane, h, r, t);
        d = 0;
        lp = 0.f;
      }
      if (memoEntries <= 0 || d == 0) {
        claim = 0;
        break;
      }
      waits = 0;
    }
    apply = true;
    const proofc_memo::Key key = proofc_memo::makeKeyWarp(word, factor, h, r, t);
    int nextWord = 0;
    bool pending = false;
    if (!proofc_memo::lookupWarp(memo, mask, word, key, nextWord, step,
                                 stepAction, record, claim, pending)) {
      if (pending && waits < kMaxWaits && mayWait) waited = waits + 1;
      break;
    }
    word = nextWord;
  }
  if (lane < W) state[b * W + lane] = word;
  if (lane == 0) {
    depth[b] = d;
    logp[b] = lp;
    if (c != cand0) slotCand[b] = c;
    if (memoEntries > 0) memoClaims[b] = claimWord(waited, claim);
  }
  return active;
}
#endif // PROOFC_WARP_MEMO
} // namespace proofc_step

#endif // PROOFC_ADVANCE_CU
