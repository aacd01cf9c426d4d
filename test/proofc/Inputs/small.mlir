// A small policy (embedding width 8, one 16 -> 12 linear, no LayerNorm) for
// the init-weights and weights-spec tests.
eval.program @small attributes {A = 6 : i64, S = 120 : i64, D = 20 : i64, B = 64 : i64} {
  eval.encoder @enc(%s: !eval.state<6>) -> tensor<12xf32> {
    %e = eval.atom_embed %s {preds = "s.pred", consts = "s.const", vars = "s.var",
                             weight = "s.atom.w", bias = "s.atom.b", embed_dim = 8 : i64}
        : !eval.state<6> -> tensor<6x16xf32>
    %r = eval.relu %e : tensor<6x16xf32>
    %h = eval.sum_atoms %r : tensor<6x16xf32> -> tensor<16xf32>
    %l = eval.linear %h {weight = "s.l.w", bias = "s.l.b"} : tensor<16xf32> -> tensor<12xf32>
    %o = eval.relu %l : tensor<12xf32>
    eval.return %o : tensor<12xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<64x6>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<64x6> -> !eval.derived<64x120x6>
    %pe = eval.encode @enc(%slots) : !eval.slots<64x6> -> tensor<64x12xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<64x120x6> -> tensor<64x120x12xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.288675 : f32} : tensor<64x12xf32>, tensor<64x120x12xf32> -> tensor<64x120xf32>
    %act, %lp = eval.select %logits, %d : tensor<64x120xf32>, !eval.derived<64x120x6> -> tensor<64xi32>, tensor<64xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<64x6>, !eval.derived<64x120x6>, tensor<64xi32>, tensor<64xf32> -> !eval.slots<64x6>
    %done = eval.terminal_check %next {max_depth = 20 : i64} : !eval.slots<64x6>
    %refill = eval.recycle %done, %pool : !eval.slots<64x6>, !eval.pool -> !eval.slots<64x6>
    eval.yield %refill : !eval.slots<64x6>
  }
}
