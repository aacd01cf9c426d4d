//===- EvalTypes.td - Types of the eval dialect ------------*- tablegen -*-===//
//
// Proof states and their batched forms carry the shape parameters in their
// types, so that verifiers can check every op against the program's A, S, B.
// Embeddings and logits are builtin tensors.
//
// B is the one parameter that changes speed only, never results (spec §1.2),
// and the one a compilation picks (`proofc compile --slots`): a program sets
// it once, in eval.program's `B`, and its types write `?` for it, like a
// dynamic tensor dimension whose value the program fixes. The tensors of the
// proof loop write `?` for their leading (per-slot) size likewise.
// eval-specialize-shapes, the pipeline's first pass, writes the program's B
// into every such size, so the passes after it, the kernels (which bake B
// in) and the plan (which passes it at run time) see one value. A, S and the
// widths stay numbers: they are the program's semantics and the encoder's
// architecture (d and L are the encoder's layer types and their count; the
// verifier checks A and S against the program's attributes).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_EVALTYPES_TD
#define PROOFC_DIALECT_EVAL_EVALTYPES_TD

include "EvalDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Eval_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Eval_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Eval_StateType : Eval_Type<"State", "state"> {
  let summary = "One proof state of at most A goal atoms";
  let description = [{
    A proof state (spec §2): an ordered list of 0..A goal atoms in canonical
    form. `!eval.state<6>` is the argument of a V10 encoder.
  }];
  let parameters = (ins "int64_t":$atoms);
  let assemblyFormat = "`<` $atoms `>`";
  let genVerifyDecl = 1;
}

def Eval_SlotsType : Eval_Type<"Slots", "slots"> {
  let summary = "B proof slots: goals, depth, log-prob, candidate, status";
  let description = [{
    The loop-carried state of the proof loop: B slots, each holding one
    candidate's current proof state (A atoms), its depth, accumulated
    log-probability, candidate index and status. Written `!eval.slots<BxA>`;
    B may be `?`, the program's B (`!eval.slots<?x6>`).
  }];
  let parameters = (ins "int64_t":$slots, "int64_t":$atoms);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Eval_DerivedType : Eval_Type<"Derived", "derived"> {
  let summary = "Per slot, the list of up to S derived states with its count";
  let description = [{
    The result of one engine step (spec §3) for every slot: up to S derived
    states of A atoms each, plus how many there are. Written
    `!eval.derived<BxSxA>`; B may be `?`, the program's B
    (`!eval.derived<?x120x6>`).
  }];
  let parameters = (ins "int64_t":$slots, "int64_t":$states,
                        "int64_t":$atoms);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Eval_PoolType : Eval_Type<"Pool", "pool"> {
  let summary = "The candidate pool, bound at run time";
  let description = [{
    The candidates of spec §6 (positives and their corruptions) in pool order;
    finished slots are refilled from it.
  }];
}

def Eval_KnowledgeBaseType : Eval_Type<"KnowledgeBase", "kb"> {
  let summary = "Facts and Horn rules, bound at run time";
  let description = [{
    The facts F and the rules of spec §1.1, indexed for the engine.
  }];
}

#endif // PROOFC_DIALECT_EVAL_EVALTYPES_TD
