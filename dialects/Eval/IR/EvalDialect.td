//===- EvalDialect.td - The eval dialect -------------------*- tablegen -*-===//
//
// `eval` describes one evaluation of a policy-guided prover: the policy's
// state encoder, the knowledge base and candidate pool bound at run time, and
// the batched proof loop (derive, encode, score, select, transition, terminal
// check, recycle). Its semantics are ../shared/spec/semantics.md.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_DIALECT_EVAL_EVALDIALECT_TD
#define PROOFC_DIALECT_EVAL_EVALDIALECT_TD

include "mlir/IR/OpBase.td"

def Eval_Dialect : Dialect {
  let name = "eval";
  let cppNamespace = "::mlir::eval";
  let summary = "Policy-guided prover evaluation for knowledge-graph link "
                "prediction";
  let description = [{
    An `eval.program` fixes the static shape parameters of an evaluation (A
    atoms per proof state, S derived states per step, D steps, B slots), the
    policy's state encoder (`eval.encoder`) and the proof loop
    (`eval.proof_loop`). Datasets, facts, rules, candidates and weights are
    bound at run time: a program never names a dataset.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Eval_Op<string mnemonic, list<Trait> traits = []>
    : Op<Eval_Dialect, mnemonic, traits>;

#endif // PROOFC_DIALECT_EVAL_EVALDIALECT_TD
