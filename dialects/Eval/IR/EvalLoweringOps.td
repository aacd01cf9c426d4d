//===- EvalLoweringOps.td - The eval dialect's lowered forms -*- tablegen -*-===//
//
// Ops that only the GPU pipeline creates (docs/lowering.md walks through it):
//   weight folding   eval.fold_columns, eval.transpose_weight (prologue ops on
//                    the weights, run once when they load) and
//                    eval.folded_atom_embed (the atom embedding as a sum of
//                    lookups into the folded tables);
//   step fusion      eval.device_loop / eval.device_yield (the proof loop
//                    made explicit: init, loop-carried values, device flag),
//                    eval.init_slots, eval.engine, eval.score_select,
//                    eval.advance, eval.copy;
//   cond outlining   eval.cond / eval.cond_yield;
//   buffer plan      eval.buffer (and the `eval.buffers` annotations);
//   launches         eval.cuda_module, eval.launch, eval.launch_cond,
//                    eval.launch_loop: the GPU plan as IR, one op per entry
//                    of the bundle (runtime/include/proofc/runtime/Bundle.h).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_EVALLOWERINGOPS_TD
#define PROOFC_DIALECT_EVAL_EVALLOWERINGOPS_TD

include "EvalDialect.td"
include "EvalTypes.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Eval_LoweredF32Tensor : RankedTensorOf<[F32]>;
def Eval_LoweredI32Tensor : RankedTensorOf<[I32]>;

//===----------------------------------------------------------------------===//
// Weight folding
//===----------------------------------------------------------------------===//

def Eval_FoldColumnsOp : Eval_Op<"fold_columns", [HasParent<"ProgramOp">]> {
  let summary = "A table pre-projected through a column block of a linear";
  let description = [{
    Runs once when the weights load (the bundle's prologue op
    `fold_columns`):
    `dst[r, :] = bias + table[r, :] · weight[:, col_begin : col_begin+cols]ᵀ`,
    computed in double and rounded once. `table` is `[rows, cols]`, `weight`
    is `[width, >= col_begin + cols]`, `bias` is `[width]` or empty for none;
    `dst` is a new tensor `[rows, width]` that later ops name like a weight.
    `rows` is a run-time extent: `E`, `R2` (R+2) or a decimal.

    ```mlir
    eval.fold_columns "atom.pred_proj" {table = "pred_emb",
        weight = "atom.weight", bias = "atom.bias", col_begin = 0 : i64,
        cols = 64 : i64, width = 64 : i64, rows = "R2"}
    ```
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$table, StrAttr:$weight,
                       StrAttr:$bias, I64Attr:$col_begin, I64Attr:$cols,
                       I64Attr:$width, StrAttr:$rows);
  let assemblyFormat = "$dst attr-dict";
  let hasVerifier = 1;
}

def Eval_TransposeWeightOp : Eval_Op<"transpose_weight", [
    HasParent<"ProgramOp">]> {
  let summary = "A weight matrix stored transposed, made once at load";
  let description = [{
    `dst = tableᵀ`: `table` is `[rows, cols]`, `dst` is `[cols, rows]` (the
    bundle's prologue op `copy` with `transpose`). The GPU policy kernel reads
    linear weights as `[in, out]` so that the threads of a warp, one output
    feature each, load consecutive addresses.
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$table, I64Attr:$rows,
                       I64Attr:$cols);
  let assemblyFormat = "$dst attr-dict";
  let hasVerifier = 1;
}

def Eval_SplitTf32WeightOp : Eval_Op<"split_tf32_weight", [
    HasParent<"ProgramOp">]> {
  let summary = "A linear weight split for 3xTF32 mma.sync, made once at load";
  let description = [{
    The bundle's prologue op `tf32_fragments`: `table` is an `nn.Linear`
    weight `[rows = out, cols = in]` (both multiples of 8). Each element
    `w` becomes `hi = tf32(w)` and `lo = tf32(w - hi)` (round to nearest,
    ties away, as `cvt.rna.tf32.f32`), stored in the order in which lane
    `l` of a warp loads the B operand of `mma.sync.m16n8k8.row.col` for
    k-step `ks` and n-tile `nt`: 4 words `{hi(W[n][k]), hi(W[n][k+4]),
    lo(W[n][k]), lo(W[n][k+4])}` at `((ks * rows/8 + nt) * 32 + l) * 4`,
    `k = 8ks + l % 4`, `n = 8nt + l / 4`. `dst` has `2 * rows * cols`
    words. The GPU policy kernel multiplies with three MMAs per tile
    (`a_lo*b_hi + a_hi*b_lo + a_hi*b_hi`, FP32 accumulate).
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$table, I64Attr:$rows,
                       I64Attr:$cols);
  let assemblyFormat = "$dst attr-dict";
  let hasVerifier = 1;
}

def Eval_SplitF16WeightOp : Eval_Op<"split_f16_weight", [
    HasParent<"ProgramOp">]> {
  let summary = "A linear weight split for 3xF16 mma.sync, made once at load";
  let description = [{
    The bundle's prologue op `f16_fragments` (`matmul=f16x3`): `table` is an
    `nn.Linear` weight `[rows = out, cols = in]` (`rows` a multiple of 8,
    `cols` of 16). Each element `w` becomes `hi = f16(w)` and
    `lo = f16(w - hi)` (IEEE half, round to nearest even, as
    `cvt.rn.f16.f32`; `w - hi` is exact in f32), packed two halves a word
    (the first in the low 16 bits, as the `.f16x2` operands of mma.sync
    hold the lower k) in the order in which lane `l` of a warp loads the B
    operand of `mma.sync.m16n8k16.row.col` for k-step `ks` (16 columns) and
    n-tile `nt`: 4 words `{hi(W[n][k], W[n][k+4]), hi(W[n][k+8],
    W[n][k+12]), lo(W[n][k], W[n][k+4]), lo(W[n][k+8], W[n][k+12])}` at
    `((ks * rows/8 + nt) * 32 + l) * 4`, `k = 16ks + l % 4`,
    `n = 8nt + l / 4` (the mma's k positions 2t, 2t+1, 2t+8, 2t+9 hold the
    columns t, t+4, t+8, t+12; the kernel takes A in the same order, so that
    its loads keep TF32's banks). `dst` has `rows * cols` words, half of
    `eval.split_tf32_weight`'s. The GPU policy kernel multiplies
    with three MMAs per tile (`a_lo*b_hi + a_hi*b_lo + a_hi*b_hi`, FP32
    accumulate) over half the k-steps of 3xTF32: the same 11 + 11
    significant bits a factor, with half's narrower exponent (a part below
    2^-14 loses bits as a subnormal; an activation or weight of magnitude
    65520 or more becomes infinite, and the logits non-finite).
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$table, I64Attr:$rows,
                       I64Attr:$cols);
  let assemblyFormat = "$dst attr-dict";
  let hasVerifier = 1;
}

def Eval_FoldAtomLayerOp : Eval_Op<"fold_atom_layer", [
    HasParent<"ProgramOp">]> {
  let summary = "The first linear folded into a table of every atom, at load";
  let description = [{
    The bundle's prologue op `fold_atom_layer`, made when the weights load.
    An encoder whose first vector layer is a linear `W · h + b` right after
    `eval.sum_atoms` computes `W · Σ atom = Σ W · atom`, so a table of
    `W · atom(p, x, y)` for every atom the engine can make replaces the
    atoms' 3 table rows each and the linear's product with one row per atom
    (the kernel adds `b` after the sum; the result differs from the unfolded
    order in rounding only, spec §7).

    `dst[(p · N + x) · N + y, j] = Σ_f weight[j, f] · v[f]` (in double from
    0, rounded once), `v = relu?((P(p) + A0(x)) + A1(y))` in float, where
    `N = V + E + 1` (`V` the variable rows of `arg0_var`), `P(p)` is
    `pred_proj[p]` for `p < R + 2` and zero for `p = R + 2` (padding),
    `A0(x)` is `arg0_var[V - 1 - x]` for `x < V` (term `t < 0`, variable
    `V_{-t}`, at `x = V + t`), `arg0_const[x - V]` for a constant and zero
    for `x = V + E` (no argument: TRUE/FALSE and padding); `A1` likewise
    with `arg1_*`. `relu` when the encoder applies relu to each atom.
    The table has `AL` rows (kernel_abi.h's `atomLayerRows`: `(R+3) · N²`
    when it fits the budget `kAtomLayerMaxBytes`, else 0) of `width` floats;
    the policy kernel takes it with `N` (the symbol `AN`, 0 without a table)
    and falls back to the unfolded layer when `AN` is 0.

    ```mlir
    eval.fold_atom_layer "mlp.0.weight.atom_layer" {
        pred_proj = "atom.pred_proj", arg0_const = "atom.arg0_const",
        arg1_const = "atom.arg1_const", arg0_var = "atom.arg0_var",
        arg1_var = "atom.arg1_var", weight = "mlp.0.weight", relu,
        width = 64 : i64}
    ```
  }];
  let arguments = (ins StrAttr:$dst, StrAttr:$pred_proj, StrAttr:$arg0_const,
                       StrAttr:$arg1_const, StrAttr:$arg0_var,
                       StrAttr:$arg1_var, StrAttr:$weight, UnitAttr:$relu,
                       I64Attr:$width);
  let assemblyFormat = "$dst attr-dict";
  let hasVerifier = 1;
}

def Eval_FoldedAtomEmbedOp : Eval_Op<"folded_atom_embed", [
    Pure, HasParent<"EncoderOp">]> {
  let summary = "eval.atom_embed as a sum of lookups into folded tables";
  let description = [{
    For each of the A atom positions `(p, a, b)`:
    `(pred_proj[p] + arg(a, arg0)) + arg(b, arg1)`, summed in that order,
    where `arg(t, argN)` is `argN_const[t]` for a constant and
    `argN_var[k-1]` for variable Vk; TRUE/FALSE atoms (p >= R) add no
    argument rows. With the tables of `eval.fold_columns` this equals
    `eval.atom_embed` (the bias is folded into `pred_proj`). Result
    `tensor<Axwxf32>`; rows past the last goal are padding.
  }];
  let arguments = (ins Eval_StateType:$state, StrAttr:$pred_proj,
                       StrAttr:$arg0_const, StrAttr:$arg1_const,
                       StrAttr:$arg0_var, StrAttr:$arg1_var);
  let results = (outs Eval_LoweredF32Tensor:$result);
  let assemblyFormat = [{
    $state attr-dict `:` qualified(type($state)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The fused step (value semantics)
//===----------------------------------------------------------------------===//

def Eval_DeviceLoopOp : Eval_Op<"device_loop", [
    SingleBlock, HasParent<"ProgramOp">]> {
  let summary = "The proof loop made explicit: while(flag) { step }";
  let description = [{
    The lowered `eval.proof_loop`. `flag` (i1: "some slot is active") and
    `inits` enter the first step; the body's block arguments are the
    loop-carried values and `eval.device_yield` gives the next flag and
    values. The body runs while the flag is true; the flag is computed on the
    device (by `eval.init_slots`, then by `eval.advance`), so the host never
    reads it. Outcomes are effects of `eval.advance`; the loop has no
    results.
  }];
  let arguments = (ins I1:$flag, Variadic<AnyType>:$inits);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $flag (`iter` `(` $inits^ `:` type($inits) `)`)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Eval_DeviceYieldOp : Eval_Op<"device_yield", [
    Pure, Terminator, HasParent<"DeviceLoopOp">]> {
  let summary = "The flag and loop-carried values for the next step";
  let arguments = (ins I1:$flag, Variadic<AnyType>:$values);
  let assemblyFormat = [{
    $flag (`,` $values^ `:` type($values))? attr-dict
  }];
  let hasVerifier = 1;
}

class Eval_StepOp<string mnemonic, list<Trait> traits = []>
    : Eval_Op<mnemonic, !listconcat(traits, [
        ParentOneOf<["ProgramOp", "DeviceLoopOp", "CondOp"]>])>;

def Eval_InitSlotsOp : Eval_StepOp<"init_slots"> {
  let summary = "Fills the slots from the pool and computes the first flag";
  let description = [{
    Slot b < min(B, N) takes candidate b (start state canon([(r, h, t)])),
    the others are inactive; the pool's cursor moves to min(B, N). `active`
    is `N > 0`. Has effects (the cursor), so it is never hoisted or merged.
  }];
  let arguments = (ins Eval_PoolType:$pool);
  let results = (outs Eval_SlotsType:$slots, I1:$active);
  let assemblyFormat = [{
    $pool attr-dict `:` qualified(type($pool)) `->` qualified(type($slots))
  }];
}

def Eval_EngineOp : Eval_StepOp<"engine", [Pure]> {
  let summary = "spec §3 derive for every active slot (the engine kernel)";
  let description = [{
    `eval.derive` with its data made explicit: the pool gives each slot's
    candidate triple, whose own fact the engine never uses. Inactive slots
    get count 0.
  }];
  let arguments = (ins Eval_KnowledgeBaseType:$kb, Eval_SlotsType:$slots,
                       Eval_PoolType:$pool);
  let results = (outs Eval_DerivedType:$derived);
  let assemblyFormat = [{
    $kb `,` $slots `,` $pool attr-dict `:` qualified(type($slots)) `->`
    qualified(type($derived))
  }];
  let hasVerifier = 1;
}

def Eval_ScoreSelectOp : Eval_StepOp<"score_select", [Pure]> {
  let summary = "Policy scoring fused with the masked argmax and log-softmax";
  let description = [{
    `eval.encode` of the slots and of the derived states with `encoder`,
    `eval.dot_score` with `scale` and `eval.select`, as one op (one kernel):
    for every active slot, the spec §4 action over its first count(b)
    derived states and its log-probability. `modes` is eval.select's (the
    selection modes the program supports, docs/sampling.md; left out:
    both), carried for the kernels that implement the sampled one.
  }];
  let arguments = (ins FlatSymbolRefAttr:$encoder, Eval_SlotsType:$slots,
                       Eval_DerivedType:$derived, F32Attr:$scale,
                       OptionalAttr<StrArrayAttr>:$modes);
  let results = (outs Eval_LoweredI32Tensor:$action,
                      Eval_LoweredF32Tensor:$logp);
  let assemblyFormat = [{
    $encoder `(` $slots `,` $derived `)` attr-dict `:` qualified(type($slots))
    `,` qualified(type($derived)) `->` type($action) `,` type($logp)
  }];
  let hasVerifier = 1;
}

def Eval_AdvanceOp : Eval_StepOp<"advance"> {
  let summary = "Transition, terminal check and recycling as one op";
  let description = [{
    `eval.transition` + `eval.terminal_check` (max_depth) + `eval.recycle`:
    each active slot moves to its chosen derived state; a finished slot
    records its outcome and takes the next candidate of the pool. `active`
    is "some slot is active afterwards", the flag of the loop and of the
    engine cond. The kernel updates the slots in place (slot b reads and
    writes only slot b), so `slots` and `result` may share buffers.
  }];
  let arguments = (ins Eval_SlotsType:$slots, Eval_DerivedType:$derived,
                       Eval_LoweredI32Tensor:$action,
                       Eval_LoweredF32Tensor:$logp, Eval_PoolType:$pool,
                       I64Attr:$max_depth);
  let results = (outs Eval_SlotsType:$result, I1:$active);
  let assemblyFormat = [{
    $slots `,` $derived `,` $action `,` $logp `,` $pool attr-dict `:`
    qualified(type($slots)) `,` qualified(type($derived)) `,` type($action)
    `,` type($logp) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Eval_CopyOp : Eval_StepOp<"copy", [SameOperandsAndResultType]> {
  let summary = "A copy into a buffer of its own (inserted by the plan)";
  let description = [{
    The identity on values; `eval-plan-buffers` inserts it where a value
    must survive the write of the buffer it would otherwise share (a buffer
    read and written in one step), and places its result in another buffer.
    Lowers to a word-copy kernel per component buffer.
  }];
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

//===----------------------------------------------------------------------===//
// The engine cond
//===----------------------------------------------------------------------===//

def Eval_CondOp : Eval_Op<"cond", [
    SingleBlock, ParentOneOf<["ProgramOp", "DeviceLoopOp", "CondOp"]>]> {
  let summary = "Runs its body when a device-computed flag is true";
  let description = [{
    `torch.cond(flag, body, identity)` without the host round trip: when
    `flag` is true the results are the body's `eval.cond_yield` operands,
    otherwise the `else` operands. `name` names the cond in the GPU plan (a
    conditional graph node).

    ```mlir
    %d2 = eval.cond "engine" if %active else(%d : !eval.derived<256x120x6>) {
      %n = eval.engine %kb, %next, %pool : !eval.slots<256x6> -> !eval.derived<256x120x6>
      eval.cond_yield %n : !eval.derived<256x120x6>
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, I1:$flag, Variadic<AnyType>:$passthru);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `if` $flag (`else` `(` $passthru^ `:` type($passthru) `)`)?
    (`->` type($results)^)? attr-dict-with-keyword $body
  }];
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::Value":$flag,
                   "::mlir::ValueRange":$passthru)>
  ];
  let hasVerifier = 1;
}

def Eval_CondYieldOp : Eval_Op<"cond_yield", [
    Pure, Terminator, HasParent<"CondOp">]> {
  let summary = "The results of an eval.cond whose flag is true";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The buffer plan
//===----------------------------------------------------------------------===//

def Eval_BufferOp : Eval_Op<"buffer", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "A device buffer, allocated once at a fixed address";
  let description = [{
    `elements` is a symbolic extent: the product of its factors, each a
    decimal or a run-time symbol (`kBundleSymbols`). `init` says where the
    initial contents come from: empty (zero-filled), a run-time binding of
    the runtime's, with its dtype (the tables of
    proofc/contract/BufferTables.h: `kb.facts`, ...), or a weight or
    folded table (`weights:<name>`, f32). Both lists are the contract's
    (proofc/contract/BundleNames.h), the ones the runtime reads.
    Values are placed in buffers by the `eval.buffers` attribute that
    `eval-plan-buffers` puts on the ops defining them.

    ```mlir
    eval.buffer @state : i32 ["B", "A", "3"]
    eval.buffer @kb_facts : i32 ["NF", "3"] init "kb.facts"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$dtype,
                       StrArrayAttr:$elements, DefaultValuedStrAttr<StrAttr, "">:$init);
  let assemblyFormat = [{
    $sym_name `:` $dtype $elements (`init` $init^)? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Launches: the GPU plan
//===----------------------------------------------------------------------===//

def Eval_CudaModuleOp : Eval_Op<"cuda_module", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "A CUDA C++ kernel template of the bundle, compiled by NVRTC";
  let description = [{
    `source` names a template of lib/Targets/CUDA/Kernels (embedded in the
    compiler at build time); `options` are its NVRTC options (the
    `-DPROOFC_...` parameters; the runtime adds `-arch`). With `link_into`,
    the module is relocatable device code (the runtime adds `-rdc=true`)
    that the driver links into the PTX of the named `gpu.module`, whose
    kernels call its `extern "C"` device functions; it is not loaded alone.

    ```mlir
    eval.cuda_module @slot "slot.cu" ["-DPROOFC_A=6", "-DPROOFC_S=120"] link_into @policy
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$source,
                       StrArrayAttr:$options,
                       OptionalAttr<FlatSymbolRefAttr>:$link_into);
  let assemblyFormat =
      "$sym_name $source $options (`link_into` $link_into^)? attr-dict";
  let hasVerifier = 1;
}

def Eval_LaunchOp : Eval_Op<"launch", [
    ParentOneOf<["ProgramOp", "LaunchLoopOp", "LaunchCondOp"]>]> {
  let summary = "One kernel launch of the GPU plan";
  let description = [{
    `kernel` is `@module::@entry`: an `eval.cuda_module` of the program or a
    `gpu.module` / `gpu.binary` beside it. The grid is 1-D, `grid` a
    symbolic extent like a buffer's. `args` are the bundle's argument
    strings: `buf:<buffer>`, `sym:<symbol>` (int32), `i32:<literal>`,
    `f32:<literal>`, `cond:<name>` (the conditional handle of a cond),
    `node:<launch>` (the runtime's record of that launch's next graph
    node, which the kernel may resize; `node:` alone for none).
    Launches before the `eval.launch_loop` are the schedule's setup
    launches (the bundle's `schedule.prologue`).
    `role` says what the launch does (init, engine, advance, advance_engine,
    finish, policy, persistent, copy: proofc/contract/BundleNames.h, the
    list the runtime reads); the bundle carries it, so the runtime never
    tells launches apart by their kernel's name.

    ```mlir
    eval.launch "advance" @step::@proofc_advance grid ["1"] block 256
        args ["buf:loop_flag", "buf:pool", "sym:N", ...] {role = "advance"}
    ```
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$role, SymbolRefAttr:$kernel,
                       StrArrayAttr:$grid, I32Attr:$block,
                       DefaultValuedAttr<I32Attr, "0">:$shared_bytes,
                       StrArrayAttr:$args);
  let assemblyFormat = [{
    $name $kernel `grid` $grid `block` $block (`shared` $shared_bytes^)?
    `args` $args attr-dict
  }];
  let hasVerifier = 1;
}

def Eval_LaunchCondOp : Eval_Op<"launch_cond", [
    SingleBlock, NoTerminator,
    ParentOneOf<["ProgramOp", "LaunchLoopOp", "LaunchCondOp"]>]> {
  let summary = "A cond of the plan: its launches run when *flag != 0";
  let description = [{
    Becomes a conditional IF graph node named `name`; the flag buffer (i32
    [1]) is written on the device, and kernels inside take it as their guard.
  }];
  let arguments = (ins StrAttr:$name, FlatSymbolRefAttr:$flag);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name `flag` $flag attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Eval_LaunchLoopOp : Eval_Op<"launch_loop", [
    SingleBlock, NoTerminator, HasParent<"ProgramOp">]> {
  let summary = "The proof loop of the plan: the step runs while *flag != 0";
  let description = [{
    Becomes the conditional WHILE graph node named `name` (the schedule's
    `loop_cond`); `flag` is the schedule's `loop_flag`.
  }];
  let arguments = (ins StrAttr:$name, FlatSymbolRefAttr:$flag);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name `flag` $flag attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

#endif // PROOFC_DIALECT_EVAL_EVALLOWERINGOPS_TD
