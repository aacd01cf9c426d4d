//===- advance.cu - The end of a slot's step: transition, terminal, recycle -===//
//
// advanceSlot (spec §5) moves slot b to the state the policy chose,
// accumulates the log-probability, applies the terminal check (TRUE, FALSE,
// max depth), writes the outcome of a finished candidate and refills the
// slot from the pool with an atomic counter. step.cu's kernels and slot.cu's
// persistent slot function call it; it touches no graph API, so slot.cu can
// be compiled as relocatable device code without the device runtime.
//
// Plain CUDA C++ with no includes, compiled by NVRTC with -DPROOFC_A=..
// and -DPROOFC_S=.. (the compiler embeds it where a template includes it).
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_ADVANCE_CU
#define PROOFC_ADVANCE_CU

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

/// The start state canon([(r, h, t)]) of candidate c: the triple is ground.
__device__ __forceinline__ void startState(int *st, const int *pool, int c) {
  const int h = pool[3 * c], r = pool[3 * c + 1], t = pool[3 * c + 2];
  st[0] = r;
  st[1] = h;
  st[2] = t;
  for (int a = 1; a < A; ++a) {
    st[3 * a] = kPadPred;
    st[3 * a + 1] = 0;
    st[3 * a + 2] = 0;
  }
}

/// Ends the step of slot b; returns 1 when the slot holds an active
/// candidate afterwards (the same one, or the next from the pool).
__device__ __forceinline__ int advanceSlot(
    int b, const int *pool, int N, int D, int R, const int *derived,
    const int *count, const int *action, const float *actionLogp, int *state,
    int *slotCand, int *depth, float *logp, int *nextCand, int *outStatus,
    int *outDepth, float *outLogp) {
  const int c = slotCand[b];
  if (c < 0) return 0;
  const int a = action[b];
  if (a < 0 || a >= count[b]) __trap(); // the policy broke its contract
  int *st = state + b * W;
  const int *chosen = derived + (static_cast<long long>(b) * S + a) * W;
  // All loads first, then the stores: the compiler cannot tell that state
  // and derived do not overlap, so a load-store loop would wait for each
  // load in turn (W round trips to L2 instead of one).
  int words[W];
  for (int w = 0; w < W; ++w) words[w] = chosen[w];
  const float lp = logp[b] + actionLogp[b];
  const int d = depth[b] + 1;
  for (int w = 0; w < W; ++w) st[w] = words[w];
  const int pred = words[0];
  const int status = pred == R       ? kProved
                     : pred == R + 1 ? kFailed
                     : d >= D        ? kTruncated
                                     : -1;
  if (status < 0) {
    logp[b] = lp;
    depth[b] = d;
    return 1;
  }
  outStatus[c] = status;
  outDepth[c] = d;
  outLogp[c] = lp;
  const int next = atomicAdd(nextCand, 1);
  if (next >= N) {
    slotCand[b] = -1;
    return 0;
  }
  slotCand[b] = next;
  depth[b] = 0;
  logp[b] = 0.f;
  startState(st, pool, next);
  return 1;
}

} // namespace proofc_step

#endif // PROOFC_ADVANCE_CU
