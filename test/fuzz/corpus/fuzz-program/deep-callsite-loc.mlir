eval.program @v10 attributes {A = 6 : i64, S = 120 : i64, D = 20 : i64, B = 256 : i64} {
  eval.encoder @enc(%s: !eval.state<6>) -> tensor<64xf32> {
    %e = eval.atom_embed %s {preds = "pred_emb", consts = "const_emb", vars = "var_emb",
                             weight = "atom.weight", bias = "atom.bias"} : !eval.state<6> -> tensor<6x64xf32>
    %r = eval.relu %e : tensor<6x64xf32> loc(callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at callsite("a" at "f.mlir":1:2)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
    %h = eval.sum_atoms %r : tensor<6x64xf32> -> tensor<64xf32>
    %l0 = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<64xf32> -> tensor<64xf32>
    %n0 = eval.layer_norm %l0 {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<64xf32>
    %h1 = eval.relu %n0 : tensor<64xf32>
    %l1 = eval.linear %h1 {weight = "mlp.1.weight", bias = "mlp.1.bias"} : tensor<64xf32> -> tensor<64xf32>
    %n1 = eval.layer_norm %l1 {weight = "mlp.1.ln.weight", bias = "mlp.1.ln.bias", eps = 1.0e-05 : f32} : tensor<64xf32>
    %h2 = eval.relu %n1 : tensor<64xf32>
    eval.return %h2 : tensor<64xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<256x6>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<256x6> -> !eval.derived<256x120x6>
    %pe = eval.encode @enc(%slots) : !eval.slots<256x6> -> tensor<256x64xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<256x120x6> -> tensor<256x120x64xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.125 : f32} : tensor<256x64xf32>, tensor<256x120x64xf32> -> tensor<256x120xf32>
    %act, %lp = eval.select %logits, %d : tensor<256x120xf32>, !eval.derived<256x120x6> -> tensor<256xi32>, tensor<256xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<256x6>, !eval.derived<256x120x6>, tensor<256xi32>, tensor<256xf32> -> !eval.slots<256x6>
    %done = eval.terminal_check %next {max_depth = 20 : i64} : !eval.slots<256x6>
    %refill = eval.recycle %done, %pool : !eval.slots<256x6>, !eval.pool -> !eval.slots<256x6>
    eval.yield %refill : !eval.slots<256x6>
  }
}
