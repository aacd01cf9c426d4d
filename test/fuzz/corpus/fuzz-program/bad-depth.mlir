eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<5x2>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<5x2> -> !eval.derived<5x3x2>
    %pe = eval.encode @enc(%slots) : !eval.slots<5x2> -> tensor<5x8xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 9 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}
