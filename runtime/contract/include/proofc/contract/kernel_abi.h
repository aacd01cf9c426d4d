//===- kernel_abi.h - The kernels' contract with the compiler and runtime -===//
//
// Everything the CUDA C++ kernels of this directory share with the code that
// launches them, defined once: the argument list of every kernel (and of
// slot.cu's device function), the sizes the compiler must reserve for them
// (engine.cu's derive scratch, memo.cu's entries, the policy's folded atom
// layer) and the outcome buffers' sentinels. The kernels include it; so do the compiler (lib/Conversion/
// EvalToGPU: the launches it emits are checked against these lists), the
// runtime (runtime/src/cuda/PlanBinding.cpp: a bundle whose launches
// disagree is refused) and the tests (test/unit/cuda: the emulated launches
// take their arguments through these lists). docs/gpu-kernels.md explains
// each argument.
//
// Plain C++ with no includes: NVRTC compiles it inside the kernel sources
// (the compiler embeds it at their `#include`, lib/Targets/Bundle/
// EmbedKernels.cmake), host code compiles it as C++17. Its functions are
// constexpr and, under NVRTC, also __device__, so a kernel can size its
// arrays with them.
//
// An argument list is an X-macro: X(Name, type, param, Kind) per argument,
// in launch order. `Name` makes the enum of slot.cu's argument words
// (kSlot<Name>), `type param` the kernel's parameter, `Kind` how the bundle
// passes it (Buf: "buf:<buffer>", Int: "sym:<symbol>" or "i32:<value>",
// Cond: "cond:<conditional>", the handle of a graph conditional node; Node:
// "node:<launch>", the device address of the GraphNodeRecord of the next
// node of launch <launch> to run after this one, made device-updatable, or
// "node:" and 0 for none: the runtime binds it only in a graph with
// conditional nodes).
//
//===----------------------------------------------------------------------===//

#ifndef PROOFC_KERNEL_ABI_H
#define PROOFC_KERNEL_ABI_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define PROOFC_ABI_FN __host__ __device__ constexpr inline
#else
#define PROOFC_ABI_FN constexpr inline
#endif

// The knowledge base's CSR tables (docs/gpu-kernels.md, "Buffers").
#define PROOFC_ABI_KB_ARGS(X)                                                  \
  X(Facts, const int *, facts, Buf)                                            \
  X(PsOffsets, const int *, psOffsets, Buf)                                    \
  X(PoFacts, const int *, poFacts, Buf)                                        \
  X(PoOffsets, const int *, poOffsets, Buf)                                    \
  X(PredOffsets, const int *, predOffsets, Buf)                                \
  X(RuleHeads, const int *, ruleHeads, Buf)                                    \
  X(RuleBodyOffsets, const int *, ruleBodyOffsets, Buf)                        \
  X(RuleBody, const int *, ruleBody, Buf)                                      \
  X(RuleNumVars, const int *, ruleNumVars, Buf)                                \
  X(RulePredOffsets, const int *, rulePredOffsets, Buf)                        \
  X(RuleIdsByPred, const int *, ruleIdsByPred, Buf)

// A slot's candidate in progress.
#define PROOFC_ABI_SLOT_ARGS(X)                                                \
  X(State, int *, state, Buf)                                                  \
  X(SlotCand, int *, slotCand, Buf)                                            \
  X(Depth, int *, depth, Buf)                                                  \
  X(Logp, float *, logp, Buf)

// The pool's counter and the outcome buffers, indexed by pool position;
// then the recorded actions (--proofs): outActions[c * actionsD + d] is the
// action candidate c took at depth d, written only when actionsD > 0 (the
// symbol ACTIONS: D when the run records, else 0 and a 1-word buffer).
#define PROOFC_ABI_OUTCOME_ARGS(X)                                             \
  X(NextCand, int *, nextCand, Buf)                                            \
  X(OutStatus, int *, outStatus, Buf)                                          \
  X(OutDepth, int *, outDepth, Buf)                                            \
  X(OutLogp, float *, outLogp, Buf)                                            \
  X(OutActions, int *, outActions, Buf)                                        \
  X(ActionsD, int, actionsD, Int)

// The flags that drive the graph's conditional nodes, and their handles.
#define PROOFC_ABI_FLAG_ARGS(X)                                                \
  X(EngineFlag, int *, engineFlag, Buf)                                        \
  X(LoopFlag, int *, loopFlag, Buf)                                            \
  X(EngineHandle, unsigned long long, engineHandle, Cond)                      \
  X(LoopHandle, unsigned long long, loopHandle, Cond)

// The step memo (memo.cu): MEMO entries of memoEntryWords(A) words, each
// slot's claimed entry, MEMO (0: off).
#define PROOFC_ABI_MEMO_ARGS(X)                                                \
  X(Memo, int *, memo, Buf)                                                    \
  X(MemoClaims, int *, memoClaims, Buf)                                        \
  X(MemoEntries, int, memoEntries, Int)

// Advancing and deriving one slot: slot.cu's proofc_slot_advance_engine
// (after the slot index, as 8-byte words), and proofc_advance_engine
// between its guard and its counters.
#define PROOFC_ABI_SLOT_STEP_ARGS(X)                                           \
  X(Pool, const int *, pool, Buf)                                              \
  X(N, int, N, Int)                                                            \
  X(D, int, D, Int)                                                            \
  X(R, int, R, Int)                                                            \
  X(Action, const int *, action, Buf)                                          \
  X(ActionLogp, const float *, actionLogp, Buf)                                \
  PROOFC_ABI_SLOT_ARGS(X)                                                      \
  PROOFC_ABI_OUTCOME_ARGS(X)                                                   \
  PROOFC_ABI_KB_ARGS(X)                                                        \
  X(E, int, E, Int)                                                            \
  X(Derived, int *, derived, Buf)                                              \
  X(Count, int *, count, Buf)                                                  \
  PROOFC_ABI_MEMO_ARGS(X)

// The step policy kernel's grid, sized on the device (kPolicyListed
// below): its words, the listed entries, and the record of the node of the
// next step's policy launch (GraphNodeRecord; 0: the grid stays the plan's
// and every slot's parts run).
#define PROOFC_ABI_POLICY_GRID_ARGS(X)                                         \
  X(PolicyGrid, int *, policyGrid, Buf)                                        \
  X(PolicyList, int *, policyList, Buf)                                        \
  X(NextPolicy, unsigned long long, nextPolicy, Node)

// The fused advance-engine's own grid, sized on the device the same way
// (kEngineListed below): its words, the slots listed (two halves of B: a
// step reads one and writes the next step's into the other) and the record
// of the node of the next step's advance-engine launch (0: the grid stays B
// blocks, block b slot b).
#define PROOFC_ABI_ENGINE_GRID_ARGS(X)                                         \
  X(EngineGrid, int *, engineGrid, Buf)                                        \
  X(EngineList, int *, engineList, Buf)                                        \
  X(NextEngine, unsigned long long, nextEngine, Node)

// The kernels of step.cu and engine.cu, in launch order. Init resets the
// policy grid to every slot's parts (policyParts of them a slot) and the
// advance-engine's to every slot.
#define PROOFC_ABI_INIT_ARGS(X)                                                \
  X(Pool, const int *, pool, Buf)                                              \
  X(N, int, N, Int)                                                            \
  X(B, int, B, Int)                                                            \
  PROOFC_ABI_SLOT_ARGS(X)                                                      \
  X(NextCand, int *, nextCand, Buf)                                            \
  PROOFC_ABI_FLAG_ARGS(X)                                                      \
  X(PolicyParts, int, policyParts, Int)                                        \
  PROOFC_ABI_POLICY_GRID_ARGS(X)                                               \
  PROOFC_ABI_ENGINE_GRID_ARGS(X)

#define PROOFC_ABI_ENGINE_ARGS(X)                                              \
  X(Guard, const int *, guard, Buf)                                            \
  X(State, const int *, state, Buf)                                            \
  X(SlotCand, const int *, slotCand, Buf)                                      \
  X(Pool, const int *, pool, Buf)                                              \
  PROOFC_ABI_KB_ARGS(X)                                                        \
  X(E, int, E, Int)                                                            \
  X(R, int, R, Int)                                                            \
  X(Derived, int *, derived, Buf)                                              \
  X(Count, int *, count, Buf)

#define PROOFC_ABI_ADVANCE_ARGS(X)                                             \
  X(Guard, const int *, guard, Buf)                                            \
  X(Pool, const int *, pool, Buf)                                              \
  X(N, int, N, Int)                                                            \
  X(B, int, B, Int)                                                            \
  X(D, int, D, Int)                                                            \
  X(R, int, R, Int)                                                            \
  X(Derived, const int *, derived, Buf)                                        \
  X(Count, const int *, count, Buf)                                            \
  X(Action, const int *, action, Buf)                                          \
  X(ActionLogp, const float *, actionLogp, Buf)                                \
  PROOFC_ABI_SLOT_ARGS(X)                                                      \
  PROOFC_ABI_OUTCOME_ARGS(X)                                                   \
  PROOFC_ABI_FLAG_ARGS(X)

#define PROOFC_ABI_ADVANCE_ENGINE_ARGS(X)                                      \
  X(Guard, const int *, guard, Buf)                                            \
  PROOFC_ABI_SLOT_STEP_ARGS(X)                                                 \
  X(Counters, int *, counters, Buf)                                            \
  PROOFC_ABI_FLAG_ARGS(X)                                                      \
  X(ChildrenPerPart, int, childrenPerPart, Int)                                \
  PROOFC_ABI_POLICY_GRID_ARGS(X)                                               \
  X(B, int, B, Int)                                                            \
  PROOFC_ABI_ENGINE_GRID_ARGS(X)

#define PROOFC_ABI_FINISH_ARGS(X)                                              \
  X(LoopFlag, int *, loopFlag, Buf)                                            \
  X(LoopHandle, unsigned long long, loopHandle, Cond)

// The advance in the policy (eval-lower-to-gpu's advance-in-policy): the step policy kernel's
// block that selects a slot's action calls slot.cu's proofc_policy_advance
// (compiled with kAdvanceInPolicyOption) with these words after the slot index,
// 8 bytes each: the slot step's, then where it lists the slot for the
// next step (the advance-engine's counters, policy grid and engine list);
// proofc_step_end, one thread after the policy launch, then does what the
// advance-engine's last block did (docs/gpu-kernels.md, "The advance in the policy").
#define PROOFC_ABI_POLICY_ADVANCE_EXTRA_ARGS(X)                                    \
  X(Counters, int *, counters, Buf)                                            \
  X(ChildrenPerPart, int, childrenPerPart, Int)                                \
  X(PolicyGrid, int *, policyGrid, Buf)                                        \
  X(PolicyList, int *, policyList, Buf)                                        \
  X(B, int, B, Int)                                                            \
  X(EngineGrid, int *, engineGrid, Buf)                                        \
  X(EngineList, int *, engineList, Buf)
#define PROOFC_ABI_POLICY_ADVANCE_ARGS(X)                                          \
  PROOFC_ABI_SLOT_STEP_ARGS(X)                                                 \
  PROOFC_ABI_POLICY_ADVANCE_EXTRA_ARGS(X)

// The advance in the policy's first step: its slots listed after the
// first derive (proofc_list_slots), so that no step's policy runs the
// every-slot grid, whose blocks read a slot's count and candidate when
// they start and could see the ones its advance wrote in the same launch.
#define PROOFC_ABI_LIST_SLOTS_ARGS(X)                                          \
  X(Guard, const int *, guard, Buf)                                            \
  X(Count, const int *, count, Buf)                                            \
  X(SlotCand, const int *, slotCand, Buf)                                      \
  X(B, int, B, Int)                                                            \
  X(ChildrenPerPart, int, childrenPerPart, Int)                                \
  PROOFC_ABI_POLICY_GRID_ARGS(X)                                               \
  X(EngineGrid, const int *, engineGrid, Buf)

#define PROOFC_ABI_STEP_END_ARGS(X)                                            \
  X(Guard, const int *, guard, Buf)                                            \
  X(Counters, int *, counters, Buf)                                            \
  PROOFC_ABI_FLAG_ARGS(X)                                                      \
  PROOFC_ABI_POLICY_GRID_ARGS(X)                                               \
  X(B, int, B, Int)                                                            \
  X(EngineGrid, int *, engineGrid, Buf)

// The entries a module defines. NVRTC compiles every entry of a program
// whether or not a launch uses it, so a module compiled with
// -DPROOFC_ENTRIES_LISTED defines only the entries named by
// -DPROOFC_ENTRY_<entry> (eval-lower-to-gpu lists the ones its plan
// launches: the persistent schedule's step module skips the step
// schedule's advance kernels, about half its cold compile); without it,
// every entry. A kernel source wraps each entry in
// `#if PROOFC_HAS_ENTRY(<entry>)` (an undefined name is 0 in #if).
#ifdef PROOFC_ENTRIES_LISTED
#define PROOFC_HAS_ENTRY(entry) PROOFC_ENTRY_##entry
#else
#define PROOFC_HAS_ENTRY(entry) 1
#endif

// Expanders. A kernel's parameter list is PROOFC_ABI_PARAMS(LIST): each
// argument expands to ", type param" and the first comma is dropped.
#define PROOFC_ABI_PARAM(Name, type, param, Kind) , type param
#define PROOFC_ABI_APPLY(M, ...) M(__VA_ARGS__)
#define PROOFC_ABI_DROP_FIRST(empty, ...) __VA_ARGS__
#define PROOFC_ABI_PARAMS(LIST)                                                \
  PROOFC_ABI_APPLY(PROOFC_ABI_DROP_FIRST, LIST(PROOFC_ABI_PARAM))
#define PROOFC_ABI_SLOT_ENUM(Name, type, param, Kind) kSlot##Name,
#define PROOFC_ABI_KIND(Name, type, param, Kind) ::proofc_abi::ArgKind::Kind,
#define PROOFC_ABI_NAME(Name, type, param, Kind) #param,

namespace proofc_abi {

enum class ArgKind { Buf, Int, Cond, Node };

/// slot.cu's argument words, in order (kSlotNumArgs of them).
enum SlotArg { PROOFC_ABI_SLOT_STEP_ARGS(PROOFC_ABI_SLOT_ENUM) kSlotNumArgs };
/// The advance's words past the slot step's (kPolicyAdvance<Name>: their
/// positions in PROOFC_ABI_POLICY_ADVANCE_ARGS, kPolicyAdvanceNumArgs in all).
#define PROOFC_ABI_POLICY_ADVANCE_ENUM(Name, type, param, Kind) kPolicyAdvance##Name,
enum PolicyAdvanceArg {
  kPolicyAdvanceFirst = kSlotNumArgs - 1,
  PROOFC_ABI_POLICY_ADVANCE_EXTRA_ARGS(PROOFC_ABI_POLICY_ADVANCE_ENUM) kPolicyAdvanceNumArgs
};
#undef PROOFC_ABI_POLICY_ADVANCE_ENUM

/// Argument positions of the kernels, for host code that reads a launch's
/// bound arguments (InitArg::NextCand: the pool counter).
#define PROOFC_ABI_ARG_ENUM(Name, type, param, Kind) Name,
namespace InitArg {
enum : int { PROOFC_ABI_INIT_ARGS(PROOFC_ABI_ARG_ENUM) kNumArgs };
}
#undef PROOFC_ABI_ARG_ENUM

/// The step policy kernel's grid (docs/gpu-kernels.md, "The step policy
/// grid"). Its launch is B x P blocks, block i part i / B of slot i % B,
/// most of them idle: a slot has work in a step only while it holds a
/// candidate with children, and its children fill only the first parts.
/// Each block the SMs start and retire costs time even when it returns at
/// once (about 0.74 ns of the GPU's for V10's one-warp blocks on an H200,
/// 24 us for 32,768), which is most of a step once few slots are left. So
/// the advance-engine lists the tiles with work after its derive: a slot
/// with k > 0 children appends policyParts(k, childrenPerPart) entries
/// (PolicyEntryWord: the block's index in the every-slot grid, slot + B x
/// part, and k), and its last block writes policyGrid's words and sets the
/// next policy node's grid to the entries (block i runs policyList's entry
/// i, listed = n entries): the slots that wait, finished or hold nothing,
/// and the parts past a slot's children, launch no blocks. Init resets the
/// mode to every slot (B x P blocks, listed = -1) before a run's first
/// step. Without a node to resize (nextPolicy 0) the mode stays every
/// slot.
enum PolicyGridWord : int {
  kPolicyListed = 0,    ///< -1: every slot; else n, the entries listed
  kPolicyListCount = 1, ///< the advance-engine's list length (re-zeroed)
  kPolicyGridWords = 2,
};

/// The fused advance-engine's grid. Its launch is B blocks, block b slot
/// b, but once the pool is empty a slot that finishes stays empty, and in
/// the last steps most blocks find no candidate: each still starts, reads
/// its slot, enters the derive and arrives on the counters (V10 on an
/// H200: a tail step's advance-engine 19 us at B = 4096, 23 us at 8192,
/// for the same slowest slot). So each block whose slot holds a
/// candidate after its advance writes the slot at its position among them
/// (the active count's atomic) into engineList's half that the next step
/// reads, and the last block, when fewer than B slots are active, sets the
/// next advance-engine node's grid to them (block i runs engineList's
/// entry i of half kEngineRead, listed = n); with every slot active the
/// mode stays every slot, whose blocks read nothing more. Init resets the
/// mode before a run's first step. Compiled without kEngineListOption
/// (below B = 8192, GpuHeuristics.h's chooseEngineGridResize) the kernel
/// neither lists nor reads a list; without a node to resize (nextEngine 0)
/// the mode stays every slot; a grid larger than the listed slots is
/// correct: its blocks past them only arrive.
enum EngineGridWord : int {
  kEngineListed = 0, ///< -1: every slot; else n, the slots listed
  kEngineRead = 1,   ///< the half (0 or 1) of engineList listed blocks read
  kEngineGridWords = 2,
};

/// An entry of the step policy's list (policyList: B x P entries, the most
/// a step can list). The policy block that runs it reads both words in the
/// round of loads that reads the guard: it needs no other load to know its
/// slot, part and children.
enum PolicyEntryWord : int {
  kPolicyEntryBlock = 0, ///< slot + B x part: the every-slot grid's block
  kPolicyEntryCount = 1, ///< the slot's children this step (k > 0)
  kPolicyEntryWords = 2,
};

/// What a "node:" argument points at (ArgKind::Node; 0: no node): the
/// runtime's record of a device-updatable graph node, one per node, in
/// device memory. It keeps the grid the node launches now, so that a
/// kernel resizes the node only when its grid changes
/// (cudaGraphKernelNodeSetGridDim costs the advance-engine's last block
/// about a microsecond).
struct GraphNodeRecord {
  unsigned long long node; ///< cudaGraphDeviceNode_t
  unsigned grid;           ///< the blocks the node launches now
  unsigned pad;
};

/// The policy parts `children` children need, `childrenPerPart` a part: a
/// slot's (its list entries) or, with a slot's most children (S), a step's
/// (the plan's grid). At least one: a slot with one child takes its action
/// in part 0 unencoded.
PROOFC_ABI_FN int policyParts(int children, int childrenPerPart) {
  return children <= childrenPerPart
             ? 1
             : (children + childrenPerPart - 1) / childrenPerPart;
}

/// The blocks of a listed step, the policy's or the advance-engine's: one
/// an entry (at least one block: a grid is never empty; with nothing
/// listed it returns at once).
PROOFC_ABI_FN int listedBlocks(int listed) {
  return listed > 0 ? listed : 1;
}

/// slot.cu's device function, called by the persistent policy kernel.
#define PROOFC_ABI_SLOT_FUNCTION "proofc_slot_advance_engine"
/// slot.cu's device function of the advance in the policy, called by the step policy
/// kernel's selecting block (compiled with kAdvanceInPolicyOption).
#define PROOFC_ABI_POLICY_ADVANCE_FUNCTION "proofc_policy_advance"

/// The power of two at or above x (x >= 1).
PROOFC_ABI_FN int powerOf2Ceil(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

/// engine.cu's hash table of a derive: 1.5 times the states it can hold (S
/// kept plus a chunk of T), rounded up to a power of two: a load factor of
/// at most 2/3 for linear probing.
PROOFC_ABI_FN int deriveTableSlots(int S, int T) {
  return powerOf2Ceil(3 * (S + T) / 2);
}

/// 4-byte words of engine.cu's DeriveScratch (a static_assert there ties it
/// to the struct) for A atoms, S states and a block of T threads: the
/// persistent kernel lends the derive that much of its dynamic shared
/// memory. SlotPlan (14), sG, sKept (only where `keptInScratch`: the
/// persistent kernel's policy reads the kept states from there; the step
/// kernels keep them in `derived`), sKeptHash, sChunk, sHash + sValid +
/// sScan, the table's keys and claims, five counters.
PROOFC_ABI_FN int deriveScratchWords(int A, int S, int T,
                                     bool keptInScratch = true) {
  return 14 + 3 * A + (keptInScratch ? S * 3 * A : 0) + S + T * 3 * A +
         3 * T + 2 * deriveTableSlots(S, T) + 5;
}

/// 4-byte words of one step memo entry (memo.cu): the hash, h, t, the state,
/// the chosen state, the log-probability, the action, rounded up to 16
/// bytes (one vector load per 4 words).
PROOFC_ABI_FN int memoEntryWords(int A) { return (5 + 2 * 3 * A + 3) / 4 * 4; }

/// Whether a proof step of a state whose first goal is (p, s, o) depends on
/// candidate (h, r, t), the key of the step memo on both backends (memo.cu,
/// runtime/src/host/StepMemo.h). Spec §3 lets a candidate change a step
/// only by never using its own triple as a fact, which matters only when
/// that triple unifies with the first goal: same predicate, each constant
/// argument equal to the candidate's (constants are >= 0, variables < 0),
/// and a goal p(V, V) only when h = t. Such a "relevant" step is keyed by
/// the state and (h, t); any other by the state alone.
PROOFC_ABI_FN bool memoStepIsRelevant(int p, int s, int o, int h, int r,
                                      int t) {
  return p == r && (s < 0 || s == h) && (o < 0 || o == t) &&
         !(s < 0 && s == o && h != t);
}

/// 4-byte words of one entry of a rollout's state table (trajectory.cu,
/// docs/rollouts-cuda.md): the hash (0: empty), the published flag, the
/// first use (stored as 0xFFFFFFFF - use, raised by atomicMax), the state.
PROOFC_ABI_FN int trajectoryEntryWords(int A) { return 3 + 3 * A; }

/// The persistent policy kernel's logits row (S floats, padded to 8 bytes)
/// lies right before slot.cu's argument words in its dynamic shared memory
/// (the compiler's persistentLayout): slot.cu's rollout step finds it this
/// many bytes before `args`.
PROOFC_ABI_FN int slotLogitsBytesBeforeArgs(int S) {
  return (4 * S + 7) / 8 * 8;
}

// The policy's first linear layer folded into every atom: the prologue op
// fold_atom_layer (docs/bundle.md) writes W · relu?(P(p) + A0(x) + A1(y)) for
// every predicate row p < R + 3 (R + 2 pred_proj rows, then a zero row) and
// every pair of argument rows x, y < n, n = atomLayerArgRows (the variable
// rows, the entities, a zero row), so the policy kernel sums 6 table reads a
// state instead of 18 and a matmul. The table has (R + 3) · n² rows of
// `width` floats, made only within kAtomLayerMaxBytes: larger, it has 0 rows
// (the symbol AL) and the kernel, told n = 0 (the symbol AN), takes its
// unfolded path. The budget is a performance choice, not a limit of the
// code: a table of kinship's size (98 MB) was measured faster on an H200,
// even read at random; larger ones are unmeasured.

/// The folded atom layer's budget in bytes.
constexpr long long kAtomLayerMaxBytes = 128LL << 20;

// The tensor-core policy's linear layers (matmul tf32x3 or f16x3): a
// weight [out, in] split into high and low parts as mma.sync's B
// fragments (eval.split_tf32_weight / split_f16_weight, the prologue ops
// tf32_fragments / f16_fragments, docs/bundle.md). Both tiles have n = 8
// (out a multiple of it); a k-step takes 8 columns in TF32 (m16n8k8) and 16
// in f16 (m16n8k16), so `in` is a multiple of that. A TF32 part fills a
// word, an f16 part half of one: the table has 2 x out x in or out x in
// words.

/// The mma tile's n: the output columns of an n-tile.
constexpr int kMmaN = 8;
/// The mma tile's k for TF32 (`f16` false) or f16 parts.
PROOFC_ABI_FN int mmaK(bool f16) { return f16 ? 16 : 8; }
/// The words a fragment table holds per weight element.
PROOFC_ABI_FN int fragmentWordsPerElement(bool f16) { return f16 ? 1 : 2; }

/// The argument rows of the folded atom layer: `varRows` variables (2A), E
/// entities and a zero row.
PROOFC_ABI_FN long long atomLayerArgRows(long long varRows, long long E) {
  return varRows + E + 1;
}

/// The rows of the folded atom layer of `width` floats a row for R
/// relations, E entities and `varRows` variable rows: (R + 3) · n² when its
/// bytes are within kAtomLayerMaxBytes, else 0 (also for a width <= 0 or a
/// negative count). Never overflows: the budget is checked by division.
PROOFC_ABI_FN long long atomLayerRows(long long R, long long E,
                                     long long varRows, long long width) {
  if (width <= 0 || R < 0 || E < 0 || varRows < 0 ||
      width > kAtomLayerMaxBytes / 4)
    return 0;
  const long long n = atomLayerArgRows(varRows, E);
  if (n > (1LL << 16))
    return 0;
  const long long maxRows = kAtomLayerMaxBytes / (4 * width);
  if (n * n > maxRows || R + 3 > maxRows / (n * n))
    return 0;
  return (R + 3) * n * n;
}

/// A rollouts call's parameters (docs/rollouts-cuda.md): the step and slot
/// modules compiled with -DPROOFC_ROLLOUT=1 (rollout.cu) read them from
/// their `extern "C" __device__` variable proofc_rollout_params, which the
/// runtime writes before it launches the graph. Pointers as 8-byte words.
struct RolloutParams {
  unsigned long long seed;        ///< the draws' Philox key
  unsigned long long episodeBase; ///< the call's first global episode id
  unsigned long long episodeOf;   ///< const int [N]: pool position -> e
  unsigned long long logits;      ///< const float [B][S]: the step
                                  ///< schedule's logits rows (0: persistent)
  // trajectory.cu's Recorder.
  unsigned long long table, overflow, stepState, stepDerived, stepCount,
      stepAction, stepLogp;
  float temperature; ///< > 0: draw (sample.cu); 0: the greedy action
  int entries;       ///< the state table's entries (a power of two)
  int D;             ///< max depth: dense rows per episode
  int pad;          ///< unused (8-byte size)
};

/// The most static shared memory slot.cu's function may use beside the
/// derive's (which is the persistent kernel's dynamic shared memory).
constexpr int kSlotStaticSharedBytes = 1024;

#if !defined(__CUDACC_RTC__)
// Host side only: the lists as data, for the compiler's and the runtime's
// checks of a launch's arguments.

/// A kernel of step.cu or engine.cu: its entry name and argument list.
struct KernelSignature {
  const char *entry;
  const ArgKind *kinds;
  const char *const *names;
  int numArgs;
};

namespace detail {
#define PROOFC_ABI_TABLES(Id, LIST)                                            \
  constexpr ArgKind k##Id##Kinds[] = {LIST(PROOFC_ABI_KIND)};                  \
  constexpr const char *k##Id##Names[] = {LIST(PROOFC_ABI_NAME)};
PROOFC_ABI_TABLES(Init, PROOFC_ABI_INIT_ARGS)
PROOFC_ABI_TABLES(Engine, PROOFC_ABI_ENGINE_ARGS)
PROOFC_ABI_TABLES(Advance, PROOFC_ABI_ADVANCE_ARGS)
PROOFC_ABI_TABLES(AdvanceEngine, PROOFC_ABI_ADVANCE_ENGINE_ARGS)
PROOFC_ABI_TABLES(Finish, PROOFC_ABI_FINISH_ARGS)
PROOFC_ABI_TABLES(SlotStep, PROOFC_ABI_SLOT_STEP_ARGS)
PROOFC_ABI_TABLES(PolicyAdvance, PROOFC_ABI_POLICY_ADVANCE_ARGS)
PROOFC_ABI_TABLES(StepEnd, PROOFC_ABI_STEP_END_ARGS)
PROOFC_ABI_TABLES(ListSlots, PROOFC_ABI_LIST_SLOTS_ARGS)
#undef PROOFC_ABI_TABLES

constexpr bool sameName(const char *a, const char *b) {
  while (*a && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
} // namespace detail

#define PROOFC_ABI_SIGNATURE(entry, Id)                                        \
  KernelSignature {                                                            \
    entry, detail::k##Id##Kinds, detail::k##Id##Names,                         \
        static_cast<int>(sizeof(detail::k##Id##Kinds) / sizeof(ArgKind))       \
  }
/// The kernels the compiler launches from the "cuda" modules it embeds.
constexpr KernelSignature kKernels[] = {
    PROOFC_ABI_SIGNATURE("proofc_init", Init),
    PROOFC_ABI_SIGNATURE("proofc_engine", Engine),
    PROOFC_ABI_SIGNATURE("proofc_advance", Advance),
    PROOFC_ABI_SIGNATURE("proofc_advance_engine", AdvanceEngine),
    PROOFC_ABI_SIGNATURE("proofc_finish", Finish),
    PROOFC_ABI_SIGNATURE("proofc_step_end", StepEnd),
    PROOFC_ABI_SIGNATURE("proofc_list_slots", ListSlots),
};
/// A module's options that define only some of its entries
/// (PROOFC_HAS_ENTRY above): the first, then the prefix + entry per entry.
constexpr const char *kEntriesListedOption = "-DPROOFC_ENTRIES_LISTED";
constexpr const char *kEntryOptionPrefix = "-DPROOFC_ENTRY_";
/// The fused advance-engine module's option that lets a slot wait up to n
/// steps for a step another slot computes (memo.cu, advance.cu): the
/// prefix + n; without it, none.
constexpr const char *kMemoWaitsOptionPrefix = "-DPROOFC_MEMO_WAITS=";
/// The fused advance-engine module's option that compiles its own grid's
/// list (EngineGridWord above, step.cu): with it the kernel reads the mode
/// and writes the list; without it block b runs slot b, the list's code
/// folds away and nextEngine is ignored.
constexpr const char *kEngineListOption = "-DPROOFC_ENGINE_LIST=1";
/// The fused advance-engine module's option that ends the loop at the tail
/// hand-off (step.cu's PROOFC_TAIL_HANDOFF): the prefix + n, the most slots
/// a step may start with listed active to be the last; without it, never.
/// It needs kEngineListOption.
constexpr const char *kTailHandoffOptionPrefix = "-DPROOFC_TAIL_HANDOFF=";
/// The step and slot modules' option that compiles a rollout's draw and
/// recording (rollout.cu; docs/rollouts-cuda.md), and the line of a
/// module's source that says it can (what the runtime's rolloutBundle looks
/// for: a module without it predates rollouts).
constexpr const char *kRolloutOption = "-DPROOFC_ROLLOUT=1";
constexpr const char *kRolloutHook = "#ifdef PROOFC_ROLLOUT";
/// slot.cu's words, the tail of the persistent policy kernel's arguments.
constexpr KernelSignature kSlotStep =
    PROOFC_ABI_SIGNATURE(PROOFC_ABI_SLOT_FUNCTION, SlotStep);
/// slot.cu's module option that compiles proofc_policy_advance (the fused
/// step's function) instead of the persistent kernel's.
constexpr const char *kAdvanceInPolicyOption = "-DPROOFC_ADVANCE_IN_POLICY=1";
/// slot.cu's advance words, the tail of the advancing step policy kernel's
/// arguments.
constexpr KernelSignature kPolicyAdvance =
    PROOFC_ABI_SIGNATURE(PROOFC_ABI_POLICY_ADVANCE_FUNCTION, PolicyAdvance);
#undef PROOFC_ABI_SIGNATURE
static_assert(sizeof(detail::kSlotStepKinds) / sizeof(ArgKind) ==
                  kSlotNumArgs,
              "kernel_abi.h: the slot step's list and enum disagree");
static_assert(sizeof(detail::kPolicyAdvanceKinds) / sizeof(ArgKind) ==
                  kPolicyAdvanceNumArgs,
              "kernel_abi.h: the advance's list and enum disagree");

/// The signature of kernel `entry`, or null for one this header does not
/// define (a policy kernel).
constexpr const KernelSignature *findKernel(const char *entry) {
  for (const KernelSignature &k : kKernels)
    if (detail::sameName(k.entry, entry)) return &k;
  return nullptr;
}

/// Whether the bundle's argument string `arg` ("buf:..", "sym:..", ..)
/// passes an argument of kind `kind`.
constexpr bool argMatches(ArgKind kind, const char *arg) {
  auto prefix = [arg](const char *p) {
    const char *a = arg;
    while (*p && *a == *p) {
      ++a;
      ++p;
    }
    return *p == 0;
  };
  switch (kind) {
  case ArgKind::Buf: return prefix("buf:");
  case ArgKind::Int: return prefix("sym:") || prefix("i32:");
  case ArgKind::Cond: return prefix("cond:");
  case ArgKind::Node: return prefix("node:");
  }
  return false;
}

/// Where the bundle's arguments `args[first, first + sig.numArgs)` stop
/// fitting `sig`: -1 when they fit, else the index (from `first`) of the
/// first argument that does not, sig.numArgs when args has too few. The
/// caller checks the total count and names the mismatch in its message.
template <typename ArgAt>
constexpr int firstMismatch(const KernelSignature &sig, int numArgs,
                            int first, ArgAt argAt) {
  for (int i = 0; i < sig.numArgs; ++i) {
    if (first + i >= numArgs) return sig.numArgs;
    if (!argMatches(sig.kinds[i], argAt(first + i))) return i;
  }
  return -1;
}

/// The bundle's prefix for an argument of `kind`, for messages.
constexpr const char *kindPrefix(ArgKind kind) {
  switch (kind) {
  case ArgKind::Buf: return "buf:";
  case ArgKind::Int: return "sym:/i32:";
  case ArgKind::Cond: return "cond:";
  case ArgKind::Node: return "node:";
  }
  return "";
}
#endif // !__CUDACC_RTC__

} // namespace proofc_abi

#endif // PROOFC_KERNEL_ABI_H
