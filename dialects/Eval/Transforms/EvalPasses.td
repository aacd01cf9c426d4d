//===- EvalPasses.td - Passes of the eval GPU pipeline -----*- tablegen -*-===//
//
// The pipeline (buildEvalGpuPipeline, docs/lowering.md), in order:
// specialize the program's shapes, fold the atom embedding, fuse the step,
// outline the engine under a device cond, plan the buffers, lower to launches and a gpu.module, then the
// upstream NVVM lowering and gpu-module-to-binary give PTX.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_TRANSFORMS_EVALPASSES_TD
#define PROOFC_DIALECT_EVAL_TRANSFORMS_EVALPASSES_TD

include "mlir/Pass/PassBase.td"

def EvalSpecializeShapesPass
    : Pass<"eval-specialize-shapes", "::mlir::eval::ProgramOp"> {
  let summary = "Writes the program's parameters into its types and attributes";
  let description = [{
    A program sets B once, in its `B` attribute: the types of its proof loop
    may write `?` for it (`!eval.slots<?x6>`, `tensor<?x120xf32>`). This pass
    writes the program's B into every such place, so the passes after it see
    static shapes, and the kernels (which bake B in) and the plan (which
    passes it at run time) are made from one value. With `slots=N` it first
    sets B = N (`proofc compile --slots N`), rewriting B in the types whether
    they wrote `?` or a number: B changes speed only, never results (spec
    §1.2). It also writes the values the spec derives where the program
    leaves them out: the score scale of `eval.dot_score` (1/sqrt(d), spec §4)
    and the `max_depth` of `eval.terminal_check` (the program's D). Runs on
    the spec-level program (an `eval.proof_loop`); a fused program is left as
    it is.
  }];
  let options = [
    Option<"slots", "slots", "int64_t", /*default=*/"0",
           "B, the slots run in parallel (0: the program's B attribute)">,
  ];
}

def EvalFoldAtomEmbeddingPass
    : Pass<"eval-fold-atom-embedding", "::mlir::eval::ProgramOp"> {
  let summary = "Folds the atom embedding's linear into pre-projected tables";
  let description = [{
    `eval.atom_embed` is a linear layer over the concatenation
    `[pred_emb[p]; term(a); term(b)]`. Splitting its weight into three column
    blocks makes it a sum of three lookups into tables projected once, when
    the weights load: `eval.fold_columns` ops (the bias goes into the
    predicate table) and `eval.folded_atom_embed` in the encoder. Tables are
    named after the weight: `atom.weight` gives `atom.pred_proj`,
    `atom.arg0_const`, `atom.arg1_const`, `atom.arg0_var`, `atom.arg1_var`.
  }];
}

def EvalFuseStepPass : Pass<"eval-fuse-step", "::mlir::eval::ProgramOp"> {
  let summary = "Fuses the proof-loop step into few kernels";
  let description = [{
    Replaces `eval.proof_loop` by `eval.device_loop`: the slots start from
    `eval.init_slots`; `eval.derive` becomes `eval.engine`; the two
    `eval.encode`, `eval.dot_score` and `eval.select` become one
    `eval.score_select`; `eval.transition`, `eval.terminal_check` and
    `eval.recycle` become one `eval.advance`, which also computes the loop's
    flag (some slot active) on the device. The loop must be wired as spec §5
    runs it (the same checks as the export to the runtime).
  }];
}

def EvalOutlineEngineCondPass
    : Pass<"eval-outline-engine-cond", "::mlir::eval::ProgramOp"> {
  let summary = "Rotates the loop so the engine runs under a device cond";
  let description = [{
    Loop rotation: the engine for the initial slots moves before the loop,
    its result becomes a loop-carried value, and the engine for the next
    step runs at the end of the step inside `eval.cond "engine"` on the flag
    that `eval.advance` computes on the device (V10's
    `torch.cond(needs_reset.any(), ...)` without the host round trip).
  }];
}

def EvalPlanBuffersPass : Pass<"eval-plan-buffers", "::mlir::eval::ProgramOp"> {
  let summary = "Places every value in a buffer allocated once";
  let description = [{
    Declares one `eval.buffer` per component of every value (slots: state,
    candidate, depth, logp; derived: states, count; ...), weights and folded
    tables included, with symbolic extents, and annotates each op with the
    buffers of its results (`eval.buffers`) and the loop with those of its
    block arguments. Loop-carried values, cond results and the in-place
    `eval.advance` share buffers; an `eval.copy` is inserted only where a
    value would still be read after its shared buffer is written in the same
    step. Nothing is allocated inside the loop. The policy kernel reads
    linear weights transposed, so they get `eval.transpose_weight` tables;
    with `matmul=tf32x3` (every linear 8-aligned) they get
    `eval.split_tf32_weight` tables instead, and the kernel multiplies on
    the tensor cores; with `matmul=f16x3` (inputs 16-aligned, outputs
    8-aligned) `eval.split_f16_weight` tables, and the kernel multiplies
    with f16 parts over half the k-steps. `matmul=auto` (the default)
    chooses f16x3 when the policy's encoder has linear layers and all are
    16-aligned in and 8-aligned out, tf32x3 when all are 8-aligned
    (GpuHeuristics.h).
    With the tensor cores, an encoder whose first vector layer is a square
    linear right after `eval.sum_atoms` also gets an `eval.fold_atom_layer`
    table (`atom-layer=false` leaves it out): the kernel reads one row of it
    per atom instead of the atom's three rows and the linear's product,
    whenever the run's table fits its budget.
  }];
  let options = [
    Option<"matmul", "matmul", "std::string", /*default=*/"\"auto\"",
           "How the GPU policy kernel multiplies its linear layers: fma "
           "(FP32 on the CUDA cores), tf32x3 (mma.sync with 3xTF32), f16x3 "
           "(mma.sync m16n8k16 with 3xF16) or auto "
           "(f16x3 when the policy's encoder has linear layers, every input "
           "16-aligned and every output 8-aligned; tf32x3 when all are "
           "8-aligned; else fma)">,
    Option<"atomLayer", "atom-layer", "bool", /*default=*/"true",
           "On the tensor cores, fold the encoder's first linear into a "
           "table of every atom (eval.fold_atom_layer) when it follows the "
           "atoms' sum">,
  ];
}

def EvalLowerToGpuPass : Pass<"eval-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lowers a planned program to launches and a gpu.module";
  let description = [{
    `eval.score_select` becomes the `gpu.func @proofc_policy` of
    `gpu.module @policy` (PolicyKernel.cpp) (scf/arith/math/memref/gpu/llvm ops: a slot's
    children spread over blocks of `groups` warps, register-tiled rows,
    16-byte vector loads, warp butterflies, the last block of a slot
    selecting),
    generated from the encoder's op list; the engine, `eval.init_slots` and
    `eval.advance` become launches of the CUDA C++ templates
    (`eval.cuda_module @step`: step.cu with engine.cu); the loop and the
    cond become `eval.launch_loop` and `eval.launch_cond`. With
    `fuse-advance-engine`, an `eval.advance` followed by the engine cond
    (`eval.cond` on its flag holding only `eval.engine` of its slots) becomes
    ONE launch of `proofc_advance_engine`: a step is two kernels, and the
    cond's else value (the old derived states, only seen once the loop
    stops) is not kept. With `schedule=persistent` (which needs that fused
    form) the loop's policy and advance-engine launches become ONE launch
    of the persistent policy kernel, whose block per slot scores, advances
    and derives its slot until the pool is empty (calling slot.cu's
    `proofc_slot_advance_engine`, `eval.cuda_module @slot` linked into the
    gpu.module), then `proofc_finish` ends the loop. The gpu.module gets the
    `#nvvm.target` of the options; libdevice is linked for exp/log.

    The kernel's shape is chosen from the program when its options are left
    at `auto`/-1 (the defaults; GpuHeuristics.h, measured on an H100,
    docs/performance.md): the schedule from B and whether the plan put the
    policy on the tensor cores (`eval.split_tf32_weight` tables), then the
    warps per block and the blocks per SM from those and the schedule,
    and the engine kernels' block size from B.
    `proofc compile` passes its flags here unchanged, so it and
    `proofc-opt --eval-gpu-pipeline` make the same kernels.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The NVVM target chip">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "The NVVM target features, e.g. +ptx87 (empty: PTX ISA 8.6, or "
           "the chip's first where that is later; an older one than the "
           "chip's is refused)">,
    Option<"libdevice", "libdevice", "std::string", /*default=*/"\"\"",
           "libdevice.10.bc to link (empty: the configured CUDA toolkit's)">,
    Option<"groups", "groups", "int64_t", /*default=*/"-1",
           "Warps per policy-kernel block (1..32; 0: the fewest that hold a "
           "slot, schedule=persistent only; -1: chosen from B, the matmul "
           "and the schedule)">,
    Option<"statesPerThread", "states-per-thread", "int64_t", /*default=*/"4",
           "States each thread of the policy kernel encodes at once">,
    Option<"engineThreads", "engine-threads", "int64_t", /*default=*/"-1",
           "Block size of the engine kernels (a power of two, 32..1024; -1: "
           "chosen from B)">,
    Option<"minBlocksPerSm", "min-blocks-per-sm", "int64_t",
           /*default=*/"-1",
           "Blocks of the policy kernel that must fit on one SM (caps its "
           "registers; 0: no cap; -1: chosen from B, the matmul and the "
           "schedule)">,
    Option<"engineMaxRegisters", "engine-max-registers", "int64_t",
           /*default=*/"-1",
           "Registers a thread of the step schedule's fused advance-engine "
           "kernel may use (NVRTC's -maxrregcount on its module; 0: no cap; "
           "-1: chosen from B)">,
    Option<"memoMaxWaits", "memo-max-waits", "int64_t", /*default=*/"-1",
           "Steps a slot of the step schedule's fused advance-engine kernel "
           "may wait for a step another slot is computing (the step memo's "
           "claimed entry) instead of computing it too (0: never; -1: "
           "chosen from B)">,
    Option<"tailHandoff", "tail-handoff", "int64_t", /*default=*/"-1",
           "Once a step of the step schedule starts with at most this many "
           "slots active (and the pool empty), the loop ends and the "
           "persistent kernel runs them to the end (0: never; -1: chosen "
           "from B; needs the advance-engine's list, B >= 8192)">,
    Option<"fuseAdvanceEngine", "fuse-advance-engine", "bool",
           /*default=*/"true",
           "Advance each slot and derive its next states in one kernel "
           "(replaces the engine cond)">,
    Option<"advanceInPolicy", "advance-in-policy", "bool", /*default=*/"false",
           "The advance in the policy: the step policy block that selects a "
           "slot's action also advances and derives it (slot.cu's "
           "proofc_policy_advance, linked in), and a one-thread proofc_step_end "
           "ends the step, instead of the advance-engine kernel (needs the "
           "fused advance-engine and the policy grid's list, B >= 1024)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
           "The proof loop: step (the policy and advance-engine kernels "
           "once per step, every slot in lockstep), persistent (one "
           "policy kernel runs each slot to the end of the pool) or auto "
           "(chosen from B and the matmul)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // PROOFC_DIALECT_EVAL_TRANSFORMS_EVALPASSES_TD
