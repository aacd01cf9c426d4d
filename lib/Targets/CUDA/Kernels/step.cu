//===- step.cu - Slot setup, transition, terminal check, recycling --------===//
//
// proofc_init fills the B slots from the candidate pool once. A step ends
// (spec §5) by moving each active slot to the state the policy chose,
// accumulating the log-probability, applying the terminal check (TRUE,
// FALSE, max depth), writing the outcome of finished candidates and
// refilling their slots from the pool with an atomic counter (advance.cu's
// advanceSlot). Two kernels do it:
//  - proofc_advance: ONE block for all slots, so that the flags that drive
//    the conditional graph nodes (any slot still active) are reduced without
//    a second kernel; the engine then runs under the engine cond.
//  - proofc_advance_engine: one block per slot advances it and derives its
//    next states at once (engine.cu's deriveSlot), so a step is two kernels
//    (the policy, then this) instead of three; the last block to finish
//    reduces the flags (two counters: each block's arrival a release add,
//    the last block's fence the acquire) and, where the plan names the
//    next policy launch's node, sizes that launch's grid (kernel_abi.h's
//    PolicyGridWord), and, where it names the next advance-engine's, that
//    one's (EngineGridWord: a block per slot still active). Its advance,
//    by the block's first warp (a state word a lane, advance.cu's
//    WarpWalk), takes the steps the step memo knows (memo.cu) at
//    once.
// proofc_finish ends the proof loop of the persistent schedule, whose one
// policy kernel has run every slot to the end (slot.cu). A module defines
// only the entries its options list (kernel_abi.h's PROOFC_HAS_ENTRY; the
// compiler lists those its plan launches), so that NVRTC compiles no other.
//
// Plain CUDA C++, compiled by NVRTC with -DPROOFC_A=.. (the compiler embeds
// it with engine.cu, memo.cu and advance.cu inlined at the #includes); the
// unit tests also compile it through a CPU shim. Signatures: kernel_abi.h's
// argument lists (docs/gpu-kernels.md explains them).
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_A
#error "step.cu: compile with -DPROOFC_A=<max atoms per state>"
#endif
#ifndef PROOFC_S
#error "step.cu: compile with -DPROOFC_S=<max derived states>"
#endif

/// Whether the fused advance-engine lists its slots for its own next
/// launch (kernel_abi.h's EngineGridWord and kEngineListOption); with 0
/// block b runs slot b and the list's code folds away: the machine code is
/// the one before the list existed.
#ifndef PROOFC_ENGINE_LIST
#define PROOFC_ENGINE_LIST 0
#endif

/// The tail hand-off (kernel_abi.h's kTailHandoffOptionPrefix; 0: none):
/// once a step starts with at most this many slots listed active, its
/// slots do not wait for other slots' steps, and its last block ends the
/// loop; the plan's tail then runs the listed slots to the end in the
/// persistent kernel (docs/gpu-kernels.md, "The tail hand-off"). It reads
/// the list, so it needs PROOFC_ENGINE_LIST.
#ifndef PROOFC_TAIL_HANDOFF
#define PROOFC_TAIL_HANDOFF 0
#endif
static_assert(PROOFC_TAIL_HANDOFF == 0 || PROOFC_ENGINE_LIST != 0,
              "the tail hand-off reads the engine's list");

#include "engine.cu"
#include "memo.cu"
#include "advance.cu"
#ifdef PROOFC_ROLLOUT
#include "rollout.cu"
#endif

/// atomicAdd with release semantics at GPU scope: the old value.
__device__ __forceinline__ int addRelease(int *p, int v) {
#if defined(__CUDA_ARCH__)
  int old;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
#else
  return atomicAdd(p, v);
#endif
}

// From the CUDA device runtime (cuda_device_runtime_api.h), declared here so
// that NVRTC needs no CUDA headers: a conditional node's value, and a
// device-updatable kernel node's grid (its dim3 by value; the returned
// cudaError_t is an int). Under nvcc, whose cuda_runtime.h declares the
// latter with its own types, that declaration is used.
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle,
                                                   unsigned int value);
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
__device__ __forceinline__ void setNodeGrid(unsigned long long node,
                                            unsigned blocks) {
  cudaGraphKernelNodeSetGridDim(reinterpret_cast<cudaGraphDeviceNode_t>(node),
                                dim3(blocks, 1, 1));
}
#else
struct ProofcGridDim {
  unsigned x, y, z;
};
extern "C" __device__ int
cudaGraphKernelNodeSetGridDim(unsigned long long node, ProofcGridDim grid);
__device__ __forceinline__ void setNodeGrid(unsigned long long node,
                                            unsigned blocks) {
  cudaGraphKernelNodeSetGridDim(node, ProofcGridDim{blocks, 1u, 1u});
}
#endif

namespace proofc_step {

__device__ __forceinline__ void setFlags(int anyActive, int *engineFlag,
                                         int *loopFlag,
                                         unsigned long long engineHandle,
                                         unsigned long long loopHandle) {
  *engineFlag = anyActive;
  *loopFlag = anyActive;
  if (engineHandle) cudaGraphSetConditional(engineHandle, anyActive);
  if (loopHandle) cudaGraphSetConditional(loopHandle, anyActive);
}

/// Resizes graph node `node` (its record; 0: none) to `blocks` when that
/// changes its grid (`current`, the record's grid, read by the caller with
/// its other loads).
__device__ __forceinline__ void resizeNode(unsigned long long node,
                                           unsigned current, int blocks) {
  auto *record = reinterpret_cast<proofc_abi::GraphNodeRecord *>(node);
  if (record && current != static_cast<unsigned>(blocks)) {
    record->grid = static_cast<unsigned>(blocks);
    setNodeGrid(record->node, static_cast<unsigned>(blocks));
  }
}

/// The next step's policy grid (kernel_abi.h, "The step policy kernel's
/// grid"): its mode word and, when the graph has the node, its blocks.
__device__ __forceinline__ void
setPolicyGrid(int *policyGrid, int listed, int blocks,
              unsigned long long node, unsigned current) {
  policyGrid[proofc_abi::kPolicyListed] = listed;
  resizeNode(node, current, blocks);
}

/// The grid a node's record holds (0 without a node).
__device__ __forceinline__ unsigned recordedGrid(unsigned long long node) {
  return node ? reinterpret_cast<const proofc_abi::GraphNodeRecord *>(node)
                    ->grid
              : 0u;
}

} // namespace proofc_step

#if PROOFC_HAS_ENTRY(proofc_init)
extern "C" __global__ void
proofc_init(PROOFC_ABI_PARAMS(PROOFC_ABI_INIT_ARGS)) {
  using namespace proofc_step;
  // Any grid: the threads share the slots (the compiler launches a thread
  // a slot), and block 0's thread 0 alone sets the flags and the grids.
  // (64-bit: a stride past the last slot must not wrap.)
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long slot =
           static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       slot < B; slot += stride) {
    const int b = static_cast<int>(slot);
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
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *nextCand = B < N ? B : N;
    setFlags(N > 0, engineFlag, loopFlag, engineHandle, loopHandle);
    // The first step's policy covers every slot (an earlier run, or one
    // cancelled, may have left the node's grid and the words trimmed).
    policyGrid[proofc_abi::kPolicyListCount] = 0;
    setPolicyGrid(policyGrid, -1, B * policyParts, nextPolicy,
                  recordedGrid(nextPolicy));
    // And the first advance-engine's: every slot, from either half.
    engineGrid[proofc_abi::kEngineListed] = -1;
    engineGrid[proofc_abi::kEngineRead] = 0;
    resizeNode(nextEngine, recordedGrid(nextEngine), B);
  }
}
#endif

#if PROOFC_HAS_ENTRY(proofc_advance)
extern "C" __global__ void
proofc_advance(PROOFC_ABI_PARAMS(PROOFC_ABI_ADVANCE_ARGS)) {
  using namespace proofc_step;
  // Every thread reads the guard before any thread can write the flag (the
  // write comes after the barrier below), so the block agrees.
  if (*guard == 0) return;
  __shared__ int sActive;
  if (threadIdx.x == 0) sActive = 0;
  __syncthreads();

  int active = 0;
  for (int b = threadIdx.x; b < B; b += blockDim.x) {
    ThreadWalk walk;
    active += advanceSlot(walk, b, pool, N, D, R, derived, count, action,
                          actionLogp, state, slotCand, depth, logp, nextCand,
                          outStatus, outDepth, outLogp, outActions, actionsD,
                          nullptr, nullptr, 0);
  }
  if (active) atomicAdd(&sActive, active);
  __syncthreads();
  if (threadIdx.x == 0)
    setFlags(sActive > 0, engineFlag, loopFlag, engineHandle, loopHandle);
}
#endif

#if PROOFC_HAS_ENTRY(proofc_advance_engine)
extern "C" __global__ void proofc_advance_engine(
    PROOFC_ABI_PARAMS(PROOFC_ABI_ADVANCE_ENGINE_ARGS)) {
  using namespace proofc_step;
  // Every thread reads the guard before its block arrives below, and only
  // the last block to arrive writes the flag, so the grid agrees. The grid's
  // words in the same round of loads: block b runs slot b, or, listed, the
  // slot the last step listed at its index (kernel_abi.h's EngineGridWord;
  // a block past them has none and only arrives).
  constexpr bool kList = PROOFC_ENGINE_LIST != 0;
  const int run = *guard;
  const int listed = kList ? engineGrid[proofc_abi::kEngineListed] : -1;
  const int read = kList ? engineGrid[proofc_abi::kEngineRead] : 0;
  if (run == 0) return;
  // The step before the hand-off: every block reads the same list count.
  const bool handoff = PROOFC_TAIL_HANDOFF > 0 && listed >= 0 &&
                       listed <= PROOFC_TAIL_HANDOFF;
  const int i = static_cast<int>(blockIdx.x);
  const int b = listed < 0 ? i : i < listed ? engineList[read * B + i] : -1;
  // Whether the block has a slot (without the list, always: no check).
  const bool hasSlot = !kList || b >= 0;
#ifdef PROOFC_ROLLOUT
  // The rollouts' module: the draw and the recording (rollout.cu), the
  // logits from the policy's rows (the call's parameters name them).
  if (hasSlot)
    proofc_rollout::rolloutStep(
        b, slotCand, depth, count,
        reinterpret_cast<const float *>(proofc_rollout_params.logits) +
            static_cast<long long>(b) * S,
        state + b * W, derived + static_cast<long long>(b) * S * W,
        const_cast<int *>(action), const_cast<float *>(actionLogp));
#endif
  __shared__ int sActive, sWaiting;
  // The advance by the block's first warp (advance.cu's WarpWalk: a state
  // word a lane), or by thread 0 (ThreadWalk) where a key's words outnumber
  // the lanes (A > 10, memo.cu's PROOFC_WARP_MEMO).
#if PROOFC_WARP_MEMO
  static_assert(PROOFC_ENGINE_THREADS >= 32,
                "step.cu: the advance-engine's advance takes a whole warp");
  using AdvanceWalk = WarpWalk;
  constexpr unsigned kAdvanceThreads = 32;
#else
  using AdvanceWalk = ThreadWalk;
  constexpr unsigned kAdvanceThreads = 1;
#endif
  if (threadIdx.x < kAdvanceThreads) {
    int active = 0;
    if (hasSlot) {
      AdvanceWalk walk;
      active = advanceSlot(walk, b, pool, N, D, R, derived, count, action,
                           actionLogp, state, slotCand, depth, logp, nextCand,
                           outStatus, outDepth, outLogp, outActions, actionsD,
                           memo, memoClaims, memoEntries, !handoff);
    }
    if (threadIdx.x == 0) {
      sActive = active;
      if (PROOFC_MEMO_WAITS > 0)
        sWaiting = hasSlot && memoEntries > 0 && memoClaims[b] < 0;
    }
  }
  // The barrier also makes the advance's stores to state[b] and slotCand[b]
  // visible to the block, which derives from them.
  __syncthreads();
  // A slot that waits for another's step (advanceSlot, PROOFC_MEMO_WAITS)
  // has no children this step: the policy encodes nothing for it.
  if (hasSlot && PROOFC_MEMO_WAITS > 0 && sWaiting) {
    if (threadIdx.x == 0) count[b] = 0;
  } else if (hasSlot) {
    proofc_engine_impl::deriveSlot(b, state, slotCand, pool, facts, psOffsets,
                                   poFacts, poOffsets, predOffsets, ruleHeads,
                                   ruleBodyOffsets, ruleBody, ruleNumVars,
                                   rulePredOffsets, ruleIdsByPred, E, R,
                                   derived, count);
  }
  // counters[0]: active slots, counters[1]: blocks arrived; the last block
  // reads and re-zeroes both for the next step. The arrival is a release
  // (it orders the active count and the policy list before it) rather than
  // a __threadfence in every block, which on sm_90 also invalidates the
  // SM's L1; the last block's fence is the acquire.
  if (threadIdx.x != 0) return;
  // The next policy has work only for a slot with children: thread 0 wrote
  // count[b] in the derive (0 for a slot that waits, finished with the pool
  // empty, or was empty), so the slots that wait launch no policy blocks,
  // and a slot lists only the parts its children fill (kernel_abi.h's
  // PolicyEntryWord), taking their positions with one atomic.
  const int children = hasSlot ? count[b] : 0;
  if (nextPolicy && children > 0) {
    const int parts = proofc_abi::policyParts(children, childrenPerPart);
    int *entry = policyList +
                 proofc_abi::kPolicyEntryWords *
                     atomicAdd(policyGrid + proofc_abi::kPolicyListCount, parts);
    for (int part = 0; part < parts; ++part) {
      // Of the every-slot grid: B blocks (a listed grid is smaller);
      // without the list the grid is B, read as before the list existed
      // so that the machine code is that one.
      entry[proofc_abi::kPolicyEntryBlock] =
          b + part * (kList ? B : static_cast<int>(gridDim.x));
      entry[proofc_abi::kPolicyEntryCount] = children;
      entry += proofc_abi::kPolicyEntryWords;
    }
  }
  // An active slot's position among them lists it for the next step (the
  // other half of engineList: this step's listed blocks read the first).
  if (sActive) {
    const int at = atomicAdd(counters, 1);
    if (kList && nextEngine) engineList[(1 - read) * B + at] = b;
  }
  if (addRelease(counters + 1, 1) != static_cast<int>(gridDim.x) - 1) return;
  __threadfence();
  // Every block has arrived: the counts are final and no block writes them
  // again in this launch. One round of loads (past L1) reads them, plain
  // stores re-zero them for the next launch.
  volatile int *counts = counters;
  const int active = counts[0];
  const int anyActive = active > 0;
  counts[0] = 0;
  counts[1] = 0;
  // The next advance-engine lists its slots once some have finished for
  // good (with every slot active, block b runs slot b: no list to read).
  if (kList && nextEngine) {
    const unsigned current = recordedGrid(nextEngine);
    const bool list = active < B;
    volatile int *grid = engineGrid;
    grid[proofc_abi::kEngineListed] = list ? active : -1;
    grid[proofc_abi::kEngineRead] = 1 - read;
    // At the hand-off the list stays for the tail, and the loop's last
    // (no-op) steps launch one block each.
    resizeNode(nextEngine, current,
               handoff ? 1 : list ? proofc_abi::listedBlocks(active) : B);
  }
  // Without a node the grid stays the plan's and the mode init's (every
  // slot): nothing was listed, nothing to read or re-zero.
  if (nextPolicy) {
    volatile int *grid = policyGrid;
    const int listed = grid[proofc_abi::kPolicyListCount];
    const unsigned current = recordedGrid(nextPolicy);
    grid[proofc_abi::kPolicyListCount] = 0;
    setPolicyGrid(policyGrid, handoff ? 0 : listed,
                  handoff ? 1 : proofc_abi::listedBlocks(listed), nextPolicy,
                  current);
  }
  // At the hand-off the slots still active go on in the tail's kernel.
  setFlags(anyActive && !handoff, engineFlag, loopFlag, engineHandle,
           loopHandle);
}
#endif

#if PROOFC_HAS_ENTRY(proofc_list_slots)
/// The advance in the policy's first step (eval-lower-to-gpu's
/// advance-in-policy): after the first derive, one block lists every slot
/// with a candidate for the first step's policy, as proofc_policy_advance
/// lists them for the next steps (at least one entry a slot; the half of
/// the list the engine grid's kEngineRead names), and sets the policy
/// grid's mode to the list (with a node, its blocks). The every-slot grid
/// is not safe there: its blocks read a slot's count and candidate when
/// they start, and one that starts after the slot's advance in the same
/// launch would see the next step's.
extern "C" __global__ void
proofc_list_slots(PROOFC_ABI_PARAMS(PROOFC_ABI_LIST_SLOTS_ARGS)) {
  using namespace proofc_step;
  if (*guard == 0 || blockIdx.x != 0) return;
  __shared__ int sEntries;
  if (threadIdx.x == 0) sEntries = 0;
  __syncthreads();
  const long long halfEntries =
      static_cast<long long>(B) * proofc_abi::policyParts(S, childrenPerPart);
  int *half = policyList + proofc_abi::kPolicyEntryWords *
                               engineGrid[proofc_abi::kEngineRead] *
                               halfEntries;
  for (int b = threadIdx.x; b < B; b += blockDim.x) {
    if (slotCand[b] < 0) continue;
    const int children = count[b];
    const int parts = proofc_abi::policyParts(children, childrenPerPart);
    writePolicyEntries(half + proofc_abi::kPolicyEntryWords *
                                  atomicAdd(&sEntries, parts),
                       b, parts, children, B);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    policyGrid[proofc_abi::kPolicyListCount] = 0;
    setPolicyGrid(policyGrid, sEntries, proofc_abi::listedBlocks(sEntries),
                  nextPolicy, recordedGrid(nextPolicy));
  }
}
#endif

#if PROOFC_HAS_ENTRY(proofc_step_end)
/// The end of a step whose policy advanced (eval-lower-to-gpu's advance-in-policy): one thread after
/// the step policy launch, whose selecting blocks advanced and derived
/// their slots and listed them (slot.cu's proofc_policy_advance), does what the
/// advance-engine's last block does: the flags, the next step's policy
/// grid (its mode and, with a node, its blocks), the engine list's count
/// and half for the next step's hand-off check and the tail, and the
/// counts re-zeroed. The launch before it is over, so plain loads see
/// every block's writes.
extern "C" __global__ void
proofc_step_end(PROOFC_ABI_PARAMS(PROOFC_ABI_STEP_END_ARGS)) {
  using namespace proofc_step;
  if (*guard == 0 || blockIdx.x != 0 || threadIdx.x != 0) return;
  const int active = counters[0];
  // The slots active at this step's start (-1: the first step's, every
  // slot): this step handed off when they were few (proofc_policy_advance).
  const int listed = engineGrid[proofc_abi::kEngineListed];
  const int read = engineGrid[proofc_abi::kEngineRead];
  const bool handoff = PROOFC_TAIL_HANDOFF > 0 && listed >= 0 &&
                       listed <= PROOFC_TAIL_HANDOFF;
  const int entries = policyGrid[proofc_abi::kPolicyListCount];
  counters[0] = 0;
  engineGrid[proofc_abi::kEngineListed] = active;
  engineGrid[proofc_abi::kEngineRead] = 1 - read;
  policyGrid[proofc_abi::kPolicyListCount] = 0;
  // The list's mode even without a node, whose grid then stays the plan's
  // (its blocks past the entries return): the every-slot mode is not safe
  // here (proofc_list_slots).
  setPolicyGrid(policyGrid, handoff ? 0 : entries,
                handoff ? 1 : proofc_abi::listedBlocks(entries), nextPolicy,
                recordedGrid(nextPolicy));
  setFlags(active > 0 && !handoff, engineFlag, loopFlag, engineHandle,
           loopHandle);
}
#endif

/// The persistent schedule's step after its one kernel (which returns only
/// when every candidate has finished): the loop ends.
#if PROOFC_HAS_ENTRY(proofc_finish)
extern "C" __global__ void
proofc_finish(PROOFC_ABI_PARAMS(PROOFC_ABI_FINISH_ARGS)) {
  if (threadIdx.x != 0) return;
  *loopFlag = 0;
  if (loopHandle) cudaGraphSetConditional(loopHandle, 0);
}
#endif
