//===- GpuHeuristics.h - The kernels' shape from a program -----*- C++ -*-===//
//
// What the pipeline's `auto` options resolve to: the measured best of the
// V10 sweeps on an H100 (docs/performance.md). They live in the compiler's
// passes (eval-plan-buffers resolves the matmul, eval-lower-to-gpu the
// schedule, groups, blocks per SM and engine threads), so every tool that runs
// the pipeline (proofc compile, proofc run --device cuda, proofc-opt) makes the
// same kernels from the same program and options.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_TRANSFORMS_GPUHEURISTICS_H
#define PROOFC_DIALECT_EVAL_TRANSFORMS_GPUHEURISTICS_H

#include "proofc/Dialect/Eval/EvalOps.h"

#include <cstdint>

namespace mlir::eval {

/// The value of the integer options (groups, min-blocks-per-sm,
/// engine-threads, engine-max-registers, memo-max-waits) and the word
/// of the string options (matmul, schedule) that ask for a choice.
inline constexpr int64_t kAutoOption = -1;
inline constexpr StringLiteral kAutoWord = "auto";
/// The matmul option's words for the policy's linears: FP32 on the CUDA
/// cores, 3xTF32 and 3xF16 on the tensor cores (chooseMatmul, plannedMatmul,
/// eval-plan-buffers).
inline constexpr StringLiteral kMatmulFma = "fma";
inline constexpr StringLiteral kMatmulTf32x3 = "tf32x3";
inline constexpr StringLiteral kMatmulF16x3 = "f16x3";
/// The most steps memo-max-waits may ask a slot to wait: a claimed entry is
/// written at its claimer's next advance, so more would only hide a bug.
inline constexpr int64_t kMaxMemoWaits = 8;

/// matmul=auto: on the tensor cores when the encoder the program's policy
/// uses (its eval.score_select's, else every eval.encoder) has linear layers
/// and each is 8-aligned (the mma tile): "f16x3" when every input is also
/// 16-aligned (m16n8k16's k), else "tf32x3"; else "fma".
StringRef chooseMatmul(ProgramOp program);

/// schedule=auto for B slots: "persistent" (one kernel runs each slot to the
/// end of the pool) while its blocks, 2 per SM, are all resident on an H100
/// (132 SMs) at once and the policy is on the tensor cores (the FMA form's
/// blocks of 8-row warps are too large to derive in); "step" otherwise, and
/// always without the fused advance-engine kernel, which persistent needs.
StringRef chooseSchedule(bool tensorCores, int64_t B, bool fusedStep);

/// groups=-1: with FMA layers 4 warps per block; with the tensor cores 8
/// below B = 1024, 2 below 4096, 1 from there on. The persistent kernel's
/// block holds all of a slot's rows: 0 (the generator fits it).
int64_t chooseGroups(bool tensorCores, int64_t B, StringRef schedule);

/// min-blocks-per-sm=-1 for the planned `matmul` (plannedMatmul): the
/// persistent kernel 2; with FMA layers 6 below B = 1024, 8 from there on;
/// with the tensor cores 2 below 1024, 10 below 4096, 18 from there on,
/// except where the plan folds the first linear into a table of every atom
/// (`foldedAtomLayer`): 21 in 3xTF32, 20 in 3xF16.
///
/// From B = 4096 the kernel's one-warp blocks are latency bound (each waits
/// on its rows' table reads from L2), and the warps an SM holds matter more
/// than registers: with 18 ptxas gives the V10 kernel 96 registers (20
/// blocks an SM) instead of 16's 128 (16 blocks). Issue 29's sweep on an
/// H200: fb15k-237's first 700 test queries at B=16384, the policy 4.17 ->
/// 3.84 s (20, the same 96 registers, the same; 12 4.80 s; 22 and 23 4.0
/// s); V10 at B=4096 5.77 -> 5.63 ms.
///
/// With the fold and one k-step's weights in flight (chooseStepsInFlight),
/// 21 has ptxas fit the kernel in 80 registers, since an SM's registers are
/// split among its 4 schedulers and 21 one-warp blocks put 6 warps on one:
/// 16,384 / (6 x 32) rounds down to 80, which leaves room for 24 blocks, the
/// number resident (Nsight Compute, 2026-11-30; the driver's occupancy
/// query agrees). In 3xTF32 that spills 44 bytes, and the warps win: V10 at
/// B=4096 3.92 -> 3.85 ms, umls 8.87 -> 8.77 ms (docs/performance.md row
/// 32); at 20 (96 registers, no spills, 20 blocks) 3.010 -> 3.047 ms at B =
/// 8192 and 3.291 -> 3.324 at 4096. 3xF16's k-step holds twice the columns
/// and spills 108 bytes at 80 registers, 48 at 20's 96, where it runs V10
/// at B = 8192 2.833-2.843 -> 2.790-2.800 ms and at 4096 3.108-3.116 ->
/// 3.054-3.063 ms (row 49; 16: 2.955, 12: 3.136, no cap: 3.607 ms).
int64_t chooseMinBlocksPerSm(StringRef matmul, int64_t B, StringRef schedule,
                             bool foldedAtomLayer);

/// Whether eval-plan-buffers folded the policy's first linear into a table
/// of every atom (`program` has an eval.fold_atom_layer): the
/// `foldedAtomLayer` of chooseMinBlocksPerSm and chooseStepsInFlight, read
/// from the program alike by the option resolution and the policy kernel.
bool plansAtomLayerTable(ProgramOp program);

/// The form eval-plan-buffers gave the policy's linears, as matmul's word:
/// "tf32x3" or "f16x3" where `program` has an eval.split_tf32_weight or
/// eval.split_f16_weight (their fragment tables), else "fma". The `matmul`
/// of chooseMinBlocksPerSm, read from the program alike by the option
/// resolution and the tail hand-off's kernel.
StringRef plannedMatmul(ProgramOp program);

/// Whether the matmul word (chooseMatmul's, plannedMatmul's) puts the
/// policy's linears on the tensor cores: the `tensorCores` of the choices
/// above.
inline bool onTensorCores(StringRef matmul) { return matmul != kMatmulFma; }

/// The most tensor-core k-steps whose weight fragments a policy-kernel warp
/// loads together (chooseStepsInFlight's choice elsewhere than at 20 or 21
/// blocks).
inline constexpr int64_t kMaxStepsInFlight = 2;

/// The tensor-core k-steps whose weight fragments a policy-kernel warp
/// loads together in a linear layer's loop (not an option: chosen from B,
/// the schedule and the fold alone, --min-blocks-per-sm given or not): 1 in
/// the step schedule from B = 4096 when the plan folds the atom layer
/// (where chooseMinBlocksPerSm picks 20 or 21), 2 elsewhere. Two in flight
/// shorten the layer's chain of L2 round trips but hold 32 more registers a
/// lane (V10's width 64): under 21 blocks' 80 registers they spill 112 bytes
/// (V10 4.05 ms at B=4096, against 3.86 with one). Without the fold, or at
/// B = 1024 (10 two-warp blocks, also 96 registers), two stayed faster
/// (V10 --no-atom-layer-table at B=4096 5.06 against 5.15 ms with one and
/// 21 blocks; B=1024 5.35 against 5.38 ms).
int64_t chooseStepsInFlight(int64_t B, StringRef schedule,
                            bool foldedAtomLayer);

/// engine-threads=-1: the block size of the engine kernels (proofc_engine,
/// proofc_advance_engine; the persistent kernel derives with its own
/// block): 64 below B = 4096, 32 from there on. A derive is mostly chains
/// of one thread (the plan, the advance), so a smaller block leaves more
/// slots resident per SM; the chunks of items it takes in turn cost less
/// than that gains (issue 29's sweep on an H200: V10 at B=1024 6.31 ms
/// with 64 against 6.97 with 128 and 6.48 with 32; at B=4096 5.76 ms with
/// 32 against 6.47 with 128; fb15k-237's first 700 test queries at
/// B=16384, 5.16 s of GPU run with 32 against 6.03 s with 128).
int64_t chooseEngineThreads(int64_t B);

/// engine-max-registers=-1: the register cap of the step schedule's fused
/// advance-engine kernel, 96 from B = 16384 on, none below. ptxas gives the
/// kernel 114 registers, so 16 of its 32-thread blocks (slots) fit on an
/// SM; with 96 (132 bytes of spills) 21 do, and at B = 16384 there are
/// ~8 times more slots than that to fill them. Issue 29's sweep on an
/// H200 (one call): fb15k-237's first 700 test queries at B=16384, the
/// advance-engine 0.936 -> 0.878 s (80: 0.926 s, 272 bytes of spills; 64:
/// 1.165 s); V10 at B=4096 5.61 ms without, 5.63-5.64 ms with 96. Since
/// the advance is a warp's (advance.cu's advanceSlotWarp, A <= 10; row 51
/// of docs/performance.md) the kernel needs 54-64 registers and the cap
/// binds only the thread's advance (A > 10).
int64_t chooseEngineMaxRegisters(int64_t B);

/// memo-max-waits=-1: the steps a slot of the step schedule may wait for a
/// step another slot is computing (advance.cu), 2 below B = 16384, none
/// from there on. Slots in flight at once compute the same memo keys; in a
/// run bound by the SMs' work, not by one slot's chain, a slot that waits
/// a step for the other's result saves a policy pass and a derive. Issue
/// 29's sweep on an H200 (one call, outcomes byte-identical): V10 at
/// B=4096 5.60 -> 5.09 ms, at 1024 6.76 -> 6.72; fb15k-237's first 700
/// test queries at B=16384 4.85 -> 4.89 s of GPU run (its advance-engine
/// 0.878 -> 0.942 s: few shared steps there, and under the 96-register cap
/// the waits' code spills 172 bytes instead of 132), hence none from 16384.
/// With the warp's advance (no spills) measured again (call C of
/// bench/results/2026-12-02e-h200-warp-advance, outcomes byte-identical):
/// fb15k-237's whole test split at B=16384 68.28 s end to end without
/// waits, 68.74 s with 2, so still none there, although V10 at 16384 gains
/// (4.65 -> 3.85 ms; its fastest B, 12288, has them). Again with rows 52-55
/// (bench/results/2026-12-04d-h200-sweep, calls A-B): V10 at 16384 3.39 ->
/// 2.42 ms with 2 and the tail hand-off (1.5 % under 12288's), fb15k-237's
/// whole split 0.17-0.48 s slower in three pairs, so still none: the two
/// run the same bundle (the fold is the run's choice, not the compiler's).
int64_t chooseMemoMaxWaits(int64_t B);

/// Whether the step schedule's advance-engine sizes the next step's policy
/// grid (kernel_abi.h's PolicyGridWord: the launch's "node:" arguments name
/// the policy launch), from B = 1024. Each step then lists the tiles with
/// work (an atomic add on one word a slot with children) and, when the
/// grid changes, resizes the node: the idle blocks of the waiting slots, of
/// the parts past a slot's children and of the tail's empty slots are not
/// launched. Issue 29's measurements on H200s, outcomes byte-identical, each
/// against the previous compiler in the same call (docs/performance.md rows
/// 36-38): with one block a tile (row 38), V10 at B=4096 3.60 -> 3.44 ms,
/// at B=2048 4.62 -> 4.51 ms and at B=1024 5.24 -> 5.18 ms resized against
/// not (row 36's list lost at 1024: 5.25 -> 5.42 ms). At B=16384 fb15k-237's
/// first 700 queries took the same end to end resized or not then (call B
/// of bench/results/2026-11-30e-h200-tile-list), so 16384 was left out;
/// with the kernels of rows 39-51 the list pays there too (row 52, calls
/// C-D of bench/results/2026-12-03b-h200-policy-rows): fb15k-237's whole
/// split 68.75 -> 61.32 s end to end, V10 4.63 -> 3.40 ms, wn18rr's whole
/// split 45.67 -> 45.63 s, results and outcomes equal.
bool choosePolicyGridResize(int64_t B);

/// Whether the step schedule's advance-engine sizes its own next launch
/// (kernel_abi.h's EngineGridWord: its "node:" argument names its own
/// launch), from B = 8192: once the pool is empty and slots finish for
/// good, a step launches a block per slot still active instead of B, most
/// of them without a candidate in the last steps. An idle block costs
/// about a nanosecond of the step, a listed step a resize (about a
/// microsecond) and a second round of loads, so it pays only where B is
/// large. Measured on an H200 against 4c850d3 in one call, outcomes
/// byte-identical (call D of bench/results/2026-11-30f-h200-engine-list,
/// docs/performance.md row 39): V10 at B = 8192 3.349-3.363 -> 3.272-3.284
/// ms and at 16384 5.836-5.839 -> 5.698-5.709 ms, fb15k-237's first 700
/// queries at 16384 5.44-5.93 -> 5.38 s of GPU run; at B = 4096 the same
/// (3.424-3.429 against 3.427-3.438 ms) and at 1024 slower (5.155-5.158
/// against 5.213-5.218 ms), so none below 8192.
bool chooseEngineGridResize(int64_t B);

/// tail-handoff=-1: from how few slots listed active the step schedule
/// hands its slots to the persistent kernel (docs/gpu-kernels.md, "The
/// tail hand-off"): 264 (the persistent kernel's two blocks an SM on a
/// 132-SM H100 or H200) from B = 8192 up to 16384 (excluded), where the
/// advance-engine lists its slots (chooseEngineGridResize), with the
/// tensor-core policy (the FMA layers' persistent block is 512 threads, one
/// an SM, and was not measured in this role); else 0 (none).
/// Once the pool is empty a step of the step schedule lasts its slowest
/// slot's policy tile and derive plus two launches (~30 us), while the
/// persistent kernel's block runs a slot's step in ~14 us (V10 with 64 to
/// 256 slots: the persistent kernel 1.8-1.9x faster than the step
/// schedule). Issue 29's prototype on an H200 (outcomes byte-identical in
/// every variant): V10 at B = 8192 3.065-3.072 -> 2.990-2.998 ms at 264,
/// 2.986-2.990 ms at 400, 3.042-3.047 at 128, 3.055-3.080 at 1024 (more
/// slots than the kernel holds at once); with three blocks an SM (its
/// registers capped) 3.027-3.035 ms. Not measured from 16384 (fb15k-237's
/// B, which has no memo waits and no folded table), hence none there.
int64_t chooseTailHandoff(bool tensorCores, int64_t B);

} // namespace mlir::eval

#endif // PROOFC_DIALECT_EVAL_TRANSFORMS_GPUHEURISTICS_H
