//===- EvalOps.td - Operations of the eval dialect ---------*- tablegen -*-===//
//
// Three groups: the program and its run-time bindings; the policy's state
// encoder (written for one proof state, applied to every slot and every
// derived state); the proof loop over B slots. docs/dialect.md lists every
// op with its verifier rules.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_EVALOPS_TD
#define PROOFC_DIALECT_EVAL_EVALOPS_TD

include "EvalDialect.td"
include "EvalTypes.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Eval_F32Tensor : RankedTensorOf<[F32]>;
def Eval_I32Tensor : RankedTensorOf<[I32]>;

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

def Eval_ProgramOp : Eval_Op<"program", [
    IsolatedFromAbove, Symbol, SymbolTable, SingleBlock, NoTerminator]> {
  let summary = "One evaluation: shape parameters, encoders, the proof loop";
  let description = [{
    The shape parameters of spec §1.2 are attributes: `A` (atoms per state),
    `S` (derived states per step), `D` (max depth), `B` (slots in parallel);
    each must be present and positive. The body holds at least one
    `eval.encoder`, the run-time bindings `eval.knowledge_base` and
    `eval.candidate_pool`, and exactly one `eval.proof_loop`. Every `eval`
    type in the body must agree with A, S and B, and a weight name must imply
    one tensor shape wherever it is used.

    These attributes are where the parameters are set: B is written only
    here (the loop's types write `?` for it, EvalTypes.td, and
    eval-specialize-shapes writes it in, or `proofc compile --slots N`'s B),
    D only here (`eval.terminal_check` takes it), and the score scale
    1/sqrt(d) of spec §4 is derived from the encoder's width.

    ```mlir
    eval.program @v10 attributes {A = 6 : i64, S = 120 : i64, D = 20 : i64,
                                  B = 256 : i64} {
      eval.encoder @enc(%s: !eval.state<6>) -> tensor<64xf32> { ... }
      %kb = eval.knowledge_base : !eval.kb
      %pool = eval.candidate_pool : !eval.pool
      eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
      ^bb0(%slots: !eval.slots<?x6>): ...
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<I64Attr>:$A, OptionalAttr<I64Attr>:$S,
                       OptionalAttr<I64Attr>:$D, OptionalAttr<I64Attr>:$B);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The single proof loop, or null when there is none (not verified yet).
    ProofLoopOp getProofLoop();
  }];
}

def Eval_KnowledgeBaseOp : Eval_Op<"knowledge_base", [
    Pure, HasParent<"ProgramOp">]> {
  let summary = "The facts and rules, bound at run time";
  let results = (outs Eval_KnowledgeBaseType:$kb);
  let assemblyFormat = "attr-dict `:` qualified(type($kb))";
}

def Eval_CandidatePoolOp : Eval_Op<"candidate_pool", [
    Pure, HasParent<"ProgramOp">]> {
  let summary = "The candidates (spec §6), bound at run time";
  let results = (outs Eval_PoolType:$pool);
  let assemblyFormat = "attr-dict `:` qualified(type($pool))";
}

//===----------------------------------------------------------------------===//
// The state encoder
//===----------------------------------------------------------------------===//

def Eval_EncoderOp : Eval_Op<"encoder", [
    IsolatedFromAbove, FunctionOpInterface, HasParent<"ProgramOp">]> {
  let summary = "The policy's state encoder, written for one proof state";
  let description = [{
    Maps one `!eval.state<A>` to a rank-1 f32 embedding `tensor<dxf32>`. The
    body is a chain: `eval.atom_embed` (per atom, `tensor<Axw>`), element-wise
    `eval.relu` at either level, `eval.sum_atoms` to one vector, then
    `eval.linear` / `eval.layer_norm` / `eval.relu` layers, ending in
    `eval.return`. The proof loop applies it with `eval.encode`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The argument type and the embedding type when the signature has the
    /// verified form (one !eval.state, one rank-1 static f32 tensor).
    StateType getStateType();
    ::mlir::RankedTensorType getEmbeddingType();
  }];
}

def Eval_ReturnOp : Eval_Op<"return", [
    Pure, Terminator, HasParent<"EncoderOp">]> {
  let summary = "Returns the embedding from an eval.encoder";
  let arguments = (ins Eval_F32Tensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Eval_AtomEmbedOp : Eval_Op<"atom_embed", [
    Pure, HasParent<"EncoderOp">]> {
  let summary = "Linear embedding of every atom of a state";
  let description = [{
    For each of the A atom positions, `weight · [preds[p]; term(a); term(b)] +
    bias` (no activation), where term(c) is `consts[c]` for a constant,
    `vars[k-1]` for variable Vk and zero for the missing arguments of
    TRUE/FALSE. Rows past the state's last goal are padding and are ignored
    by `eval.sum_atoms`. The result is `tensor<Axwxf32>`.

    Implied weight shapes (e = `embed_dim`, default w): `preds` [R+2, e],
    `consts` [E, e], `vars` [2A, e], `weight` [w, 3e], `bias` [w].
  }];
  let arguments = (ins Eval_StateType:$state, StrAttr:$preds, StrAttr:$consts,
                       StrAttr:$vars, StrAttr:$weight, StrAttr:$bias,
                       OptionalAttr<I64Attr>:$embed_dim);
  let results = (outs Eval_F32Tensor:$result);
  let assemblyFormat = "$state attr-dict `:` qualified(type($state)) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The width of the pred/const/var tables (embed_dim, or the output width).
    int64_t getEmbeddingWidth();
  }];
}

def Eval_ReluOp : Eval_Op<"relu", [
    Pure, SameOperandsAndResultType, HasParent<"EncoderOp">]> {
  let summary = "Element-wise max(x, 0), per atom or on the state vector";
  let arguments = (ins Eval_F32Tensor:$input);
  let results = (outs Eval_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Eval_SumAtomsOp : Eval_Op<"sum_atoms", [
    Pure, HasParent<"EncoderOp">]> {
  let summary = "Sums the rows of the state's real atoms into one vector";
  let arguments = (ins Eval_F32Tensor:$input);
  let results = (outs Eval_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Eval_LinearOp : Eval_Op<"linear", [Pure, HasParent<"EncoderOp">]> {
  let summary = "y = W x + b (PyTorch nn.Linear: weight [out, in], bias [out])";
  let arguments = (ins Eval_F32Tensor:$input, StrAttr:$weight, StrAttr:$bias);
  let results = (outs Eval_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Eval_LayerNormOp : Eval_Op<"layer_norm", [
    Pure, SameOperandsAndResultType, HasParent<"EncoderOp">]> {
  let summary = "(x - mean) / sqrt(biased var + eps) * weight + bias";
  let arguments = (ins Eval_F32Tensor:$input, StrAttr:$weight, StrAttr:$bias,
                       F32Attr:$eps);
  let results = (outs Eval_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The proof loop
//===----------------------------------------------------------------------===//

def Eval_ProofLoopOp : Eval_Op<"proof_loop", [
    SingleBlock, HasParent<"ProgramOp">]> {
  let summary = "Runs spec §5 for every candidate of the pool over B slots";
  let description = [{
    The body is one step for all B slots; its block argument is the slots at
    the start of the step and `eval.yield` gives them for the next. Finished
    slots are refilled from the pool until it is empty and every slot is
    done. The body holds exactly one each of `eval.derive`,
    `eval.dot_score`, `eval.select`, `eval.transition`,
    `eval.terminal_check` and `eval.recycle`, and at least one
    `eval.encode`.
  }];
  let arguments = (ins Eval_KnowledgeBaseType:$kb, Eval_PoolType:$pool);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kb `,` $pool attr-dict `:` qualified(type($kb)) `,` qualified(type($pool)) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The slots block argument, or null when the body is malformed.
    ::mlir::Value getSlots();
  }];
}

def Eval_YieldOp : Eval_Op<"yield", [
    Pure, Terminator, HasParent<"ProofLoopOp">]> {
  let summary = "The slots for the next step of the proof loop";
  let arguments = (ins Eval_SlotsType:$slots);
  let assemblyFormat = "$slots attr-dict `:` qualified(type($slots))";
  let hasVerifier = 1;
}

def Eval_DeriveOp : Eval_Op<"derive", [Pure, HasParent<"ProofLoopOp">]> {
  let summary = "The engine step (spec §3) for every slot";
  let arguments = (ins Eval_KnowledgeBaseType:$kb, Eval_SlotsType:$slots);
  let results = (outs Eval_DerivedType:$derived);
  let assemblyFormat = [{
    $kb `,` $slots attr-dict `:` qualified(type($kb)) `,` qualified(type($slots)) `->` qualified(type($derived))
  }];
  let hasVerifier = 1;
}

def Eval_EncodeOp : Eval_Op<"encode", [Pure, HasParent<"ProofLoopOp">]> {
  let summary = "Applies an eval.encoder to every slot or every derived state";
  let description = [{
    `!eval.slots<BxA>` gives `tensor<Bxdxf32>`; `!eval.derived<BxSxA>` gives
    `tensor<BxSxdxf32>`, where d is the callee's embedding width.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       AnyTypeOf<[Eval_SlotsType, Eval_DerivedType]>:$states);
  let results = (outs Eval_F32Tensor:$result);
  let assemblyFormat = [{
    $callee `(` $states `)` attr-dict `:` qualified(type($states)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Eval_DotScoreOp : Eval_Op<"dot_score", [Pure, HasParent<"ProofLoopOp">]> {
  let summary = "logit[b, i] = <parent[b], child[b, i]> * scale";
  let description = [{
    `scale` defaults to what spec §4 derives, 1/sqrt(d) for embeddings of
    width d (`getEffectiveScale`; eval-specialize-shapes writes it); write it
    only for another architecture's scale.
  }];
  let arguments = (ins Eval_F32Tensor:$parent, Eval_F32Tensor:$children,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs Eval_F32Tensor:$logits);
  let assemblyFormat = [{
    $parent `,` $children attr-dict `:` type($parent) `,` type($children)
    `->` type($logits)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// 1/sqrt(d), d the embeddings' width (spec §4).
    float getDefaultScale();
    /// `scale` when written, else getDefaultScale().
    float getEffectiveScale();
  }];
}

def Eval_SelectOp : Eval_Op<"select", [Pure, HasParent<"ProofLoopOp">]> {
  let summary = "The action and its log-probability (spec §4, docs/sampling.md)";
  let description = [{
    Over each slot's first count(b) logits, in one of two selection modes,
    chosen per run (the same compiled program evaluates greedily and runs
    sampled rollouts):

    - `greedy` (evaluation, always): the smallest index within the
      near-tie tolerance of the maximum, and its log_softmax (spec §4).
    - `sampled` (rollouts, docs/rollouts.md): the Gumbel-max draw of
      docs/sampling.md from softmax(logits / temperature), keyed by the
      run's seed, the episode and the step (Philox4x32-10), and its
      log_softmax(logits / temperature). The run gives seed, episodes and
      temperature; nothing of them is in the program.

    Both give action 0 and log-probability 0 when there is one derived
    state. `modes` declares which modes the program supports: a list of
    distinct "greedy" / "sampled" that contains "greedy"; left out, both.
    A runtime refuses sampled runs of a program that leaves "sampled" out
    (ProgramSpec's policy.sampled, the bundle's policy.select_modes).
  }];
  let arguments = (ins Eval_F32Tensor:$logits, Eval_DerivedType:$derived,
                       OptionalAttr<StrArrayAttr>:$modes);
  let results = (outs Eval_I32Tensor:$action, Eval_F32Tensor:$logp);
  let assemblyFormat = [{
    $logits `,` $derived attr-dict `:` type($logits) `,` qualified(type($derived))
    `->` type($action) `,` type($logp)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `modes` (left out: both) lists "sampled".
    bool supportsSampled();
  }];
}

def Eval_TransitionOp : Eval_Op<"transition", [
    Pure, HasParent<"ProofLoopOp">]> {
  let summary = "Moves each slot to its chosen derived state";
  let description = [{
    goals <- derived[b, action[b]]; depth += 1; logp += logp_step[b].
  }];
  let arguments = (ins Eval_SlotsType:$slots, Eval_DerivedType:$derived,
                       Eval_I32Tensor:$action, Eval_F32Tensor:$logp);
  let results = (outs Eval_SlotsType:$result);
  let assemblyFormat = [{
    $slots `,` $derived `,` $action `,` $logp attr-dict `:` qualified(type($slots)) `,`
    qualified(type($derived)) `,` type($action) `,` type($logp) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Eval_TerminalCheckOp : Eval_Op<"terminal_check", [
    Pure, SameOperandsAndResultType, HasParent<"ProofLoopOp">]> {
  let summary = "Marks slots PROVED (TRUE), FAILED (FALSE) or TRUNCATED (D)";
  let description = [{
    `max_depth` is the program's D (written, it must equal D; left out,
    eval-specialize-shapes writes D).
  }];
  let arguments = (ins Eval_SlotsType:$slots, OptionalAttr<I64Attr>:$max_depth);
  let results = (outs Eval_SlotsType:$result);
  let assemblyFormat = "$slots attr-dict `:` qualified(type($slots))";
  let hasVerifier = 1;
}

def Eval_RecycleOp : Eval_Op<"recycle", [HasParent<"ProofLoopOp">]> {
  let summary = "Records finished slots' outcomes and refills them from the pool";
  let arguments = (ins Eval_SlotsType:$slots, Eval_PoolType:$pool);
  let results = (outs Eval_SlotsType:$result);
  let assemblyFormat = [{
    $slots `,` $pool attr-dict `:` qualified(type($slots)) `,` qualified(type($pool))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // PROOFC_DIALECT_EVAL_EVALOPS_TD
