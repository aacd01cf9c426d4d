eval.program @small attributes {A = 4 : i64, S = 2 : i64, D = 3 : i64, B = 1 : i64} {
  eval.encoder @narrow(%s: !eval.state<4>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b",
                             embed_dim = 5 : i64} : !eval.state<4> -> tensor<4x16xf32>
    %h = eval.sum_atoms %e : tensor<4x16xf32> -> tensor<16xf32>
    %l = eval.linear %h {weight = "l.w", bias = "l.b"} : tensor<16xf32> -> tensor<8xf32>
    eval.return %l : tensor<8xf32>
  }
  eval.encoder @unused(%s: !eval.state<4>) -> tensor<16xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b",
                             embed_dim = 5 : i64} : !eval.state<4> -> tensor<4x16xf32>
    %h = eval.sum_atoms %e : tensor<4x16xf32> -> tensor<16xf32>
    eval.return %h : tensor<16xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<1x4>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<1x4> -> !eval.derived<1x2x4>
    %pe = eval.encode @narrow(%slots) : !eval.slots<1x4> -> tensor<1x8xf32>
    %ce = eval.encode @narrow(%d) : !eval.derived<1x2x4> -> tensor<1x2x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.5 : f32} : tensor<1x8xf32>, tensor<1x2x8xf32> -> tensor<1x2xf32>
    %act, %lp = eval.select %logits, %d : tensor<1x2xf32>, !eval.derived<1x2x4> -> tensor<1xi32>, tensor<1xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<1x4>, !eval.derived<1x2x4>, tensor<1xi32>, tensor<1xf32> -> !eval.slots<1x4>
    %done = eval.terminal_check %next {max_depth = 3 : i64} : !eval.slots<1x4>
    %refill = eval.recycle %done, %pool : !eval.slots<1x4>, !eval.pool -> !eval.slots<1x4>
    eval.yield %refill : !eval.slots<1x4>
  }
}
