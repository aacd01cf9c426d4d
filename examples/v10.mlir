// The V10 configuration: A=6, S=120, D=20, B=256, d=64, L=2 — the reference
// `mlp-dot` policy of ../shared/spec/semantics.md §4 and the architecture of
// every file in ../shared/weights. The program names no dataset: facts, rules,
// candidates and weights are bound when it runs (see README.md here).
// B and D are set once, in the attributes: the loop's types write `?` for B
// (`proofc compile --slots N` compiles it for another B), terminal_check
// takes D, and dot_score's scale is the spec's 1/sqrt(d).
eval.program @v10 attributes {A = 6 : i64, S = 120 : i64, D = 20 : i64, B = 256 : i64} {
  // enc(G) for one proof state; d = 64 and the two MLP layers are in the types.
  eval.encoder @enc(%s: !eval.state<6>) -> tensor<64xf32> {
    %e = eval.atom_embed %s {preds = "pred_emb", consts = "const_emb", vars = "var_emb",
                             weight = "atom.weight", bias = "atom.bias"} : !eval.state<6> -> tensor<6x64xf32>
    %r = eval.relu %e : tensor<6x64xf32>
    %h = eval.sum_atoms %r : tensor<6x64xf32> -> tensor<64xf32>
    %l0 = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<64xf32> -> tensor<64xf32>
    %n0 = eval.layer_norm %l0 {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<64xf32>
    %h1 = eval.relu %n0 : tensor<64xf32>
    %l1 = eval.linear %h1 {weight = "mlp.1.weight", bias = "mlp.1.bias"} : tensor<64xf32> -> tensor<64xf32>
    %n1 = eval.layer_norm %l1 {weight = "mlp.1.ln.weight", bias = "mlp.1.ln.bias", eps = 1.0e-05 : f32} : tensor<64xf32>
    %h2 = eval.relu %n1 : tensor<64xf32>
    eval.return %h2 : tensor<64xf32>
  }
  %kb = eval.knowledge_base : !eval.kb          // facts + rules, bound at run time
  %pool = eval.candidate_pool : !eval.pool      // candidates, bound at run time
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<?x6>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<?x6> -> !eval.derived<?x120x6>
    %pe = eval.encode @enc(%slots) : !eval.slots<?x6> -> tensor<?x64xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<?x120x6> -> tensor<?x120x64xf32>
    // logit_i = <enc(G), enc(D_i)> / sqrt(d) (the default scale)
    %logits = eval.dot_score %pe, %ce : tensor<?x64xf32>, tensor<?x120x64xf32> -> tensor<?x120xf32>
    %act, %lp = eval.select %logits, %d : tensor<?x120xf32>, !eval.derived<?x120x6> -> tensor<?xi32>, tensor<?xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<?x6>, !eval.derived<?x120x6>, tensor<?xi32>, tensor<?xf32> -> !eval.slots<?x6>
    %done = eval.terminal_check %next : !eval.slots<?x6>
    %refill = eval.recycle %done, %pool : !eval.slots<?x6>, !eval.pool -> !eval.slots<?x6>
    eval.yield %refill : !eval.slots<?x6>
  }
}
