//===- step.cu - Slot setup, transition, terminal check, recycling --------===//
//
// proofc_init fills the B slots from the candidate pool once; proofc_advance
// ends every step (spec §5): it moves each active slot to the state the
// policy chose, accumulates the log-probability, applies the terminal check
// (TRUE, FALSE, max depth), writes the outcome of finished candidates and
// refills their slots from the pool with an atomic counter. Both run as ONE
// block so that the flags that drive the conditional graph nodes (any slot
// still active) are reduced without a second kernel; they are tiny next to
// the engine and the policy.
//
// Plain CUDA C++ with no includes (NVRTC, -DPROOFC_A=..); the unit tests also
// compile it through a CPU shim. Signatures: docs/gpu-kernels.md.
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_A
#error "step.cu: compile with -DPROOFC_A=<max atoms per state>"
#endif
#ifndef PROOFC_S
#error "step.cu: compile with -DPROOFC_S=<max derived states>"
#endif

// From the CUDA device runtime (cuda_device_runtime_api.h), declared here so
// that NVRTC needs no CUDA headers.
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle,
                                                   unsigned int value);

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

__device__ __forceinline__ void setFlags(int anyActive, int *engineFlag,
                                         int *loopFlag,
                                         unsigned long long engineHandle,
                                         unsigned long long loopHandle) {
  *engineFlag = anyActive;
  *loopFlag = anyActive;
  if (engineHandle) cudaGraphSetConditional(engineHandle, anyActive);
  if (loopHandle) cudaGraphSetConditional(loopHandle, anyActive);
}

} // namespace proofc_step

extern "C" __global__ void proofc_init(const int *pool, int N, int B,
                                       int *state, int *slotCand, int *depth,
                                       float *logp, int *nextCand,
                                       int *engineFlag, int *loopFlag,
                                       unsigned long long engineHandle,
                                       unsigned long long loopHandle) {
  using namespace proofc_step;
  for (int b = threadIdx.x; b < B; b += blockDim.x) {
    const int c = b < N ? b : -1;
    slotCand[b] = c;
    depth[b] = 0;
    logp[b] = 0.f;
    int *st = state + b * W;
    if (c >= 0) {
      startState(st, pool, c);
    } else {
      for (int w = 0; w < W; ++w) st[w] = w % 3 == 0 ? kPadPred : 0;
    }
  }
  if (threadIdx.x == 0) {
    *nextCand = B < N ? B : N;
    setFlags(N > 0, engineFlag, loopFlag, engineHandle, loopHandle);
  }
}

extern "C" __global__ void proofc_advance(
    const int *guard, const int *pool, int N, int B, int D, int R,
    const int *derived, const int *count, const int *action,
    const float *actionLogp, int *state, int *slotCand, int *depth,
    float *logp, int *nextCand, int *outStatus, int *outDepth, float *outLogp,
    int *engineFlag, int *loopFlag, unsigned long long engineHandle,
    unsigned long long loopHandle) {
  using namespace proofc_step;
  // Every thread reads the guard before any thread can write the flag (the
  // write comes after the barrier below), so the block agrees.
  if (*guard == 0) return;
  __shared__ int sActive;
  if (threadIdx.x == 0) sActive = 0;
  __syncthreads();

  int active = 0;
  for (int b = threadIdx.x; b < B; b += blockDim.x) {
    const int c = slotCand[b];
    if (c < 0) continue;
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
      ++active;
      continue;
    }
    outStatus[c] = status;
    outDepth[c] = d;
    outLogp[c] = lp;
    const int next = atomicAdd(nextCand, 1);
    if (next < N) {
      slotCand[b] = next;
      depth[b] = 0;
      logp[b] = 0.f;
      startState(st, pool, next);
      ++active;
    } else {
      slotCand[b] = -1;
    }
  }
  if (active) atomicAdd(&sActive, active);
  __syncthreads();
  if (threadIdx.x == 0)
    setFlags(sActive > 0, engineFlag, loopFlag, engineHandle, loopHandle);
}
