// Round-trips every eval op and type through the custom and the generic form.
// RUN: proofc-opt %s | proofc-opt | FileCheck %s
// RUN: proofc-opt %s --mlir-print-op-generic | proofc-opt | FileCheck %s

// CHECK-LABEL: eval.program @v10 attributes {A = 6 : i64, B = 256 : i64, D = 20 : i64, S = 120 : i64} {
eval.program @v10 attributes {A = 6 : i64, S = 120 : i64, D = 20 : i64, B = 256 : i64} {
  // CHECK: eval.encoder @enc(%[[S:.*]]: !eval.state<6>) -> tensor<64xf32> {
  eval.encoder @enc(%s: !eval.state<6>) -> tensor<64xf32> {
    // CHECK-NEXT: %[[E:.*]] = eval.atom_embed %[[S]] {bias = "atom.bias", consts = "const_emb", preds = "pred_emb", vars = "var_emb", weight = "atom.weight"} : !eval.state<6> -> tensor<6x64xf32>
    %e = eval.atom_embed %s {preds = "pred_emb", consts = "const_emb", vars = "var_emb",
                             weight = "atom.weight", bias = "atom.bias"} : !eval.state<6> -> tensor<6x64xf32>
    // CHECK-NEXT: %[[R:.*]] = eval.relu %[[E]] : tensor<6x64xf32>
    %r = eval.relu %e : tensor<6x64xf32>
    // CHECK-NEXT: %[[H:.*]] = eval.sum_atoms %[[R]] : tensor<6x64xf32> -> tensor<64xf32>
    %h = eval.sum_atoms %r : tensor<6x64xf32> -> tensor<64xf32>
    // CHECK-NEXT: %[[L0:.*]] = eval.linear %[[H]] {bias = "mlp.0.bias", weight = "mlp.0.weight"} : tensor<64xf32> -> tensor<64xf32>
    %l0 = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<64xf32> -> tensor<64xf32>
    // CHECK-NEXT: %[[N0:.*]] = eval.layer_norm %[[L0]] {bias = "mlp.0.ln.bias", eps = 9.99999974E-6 : f32, weight = "mlp.0.ln.weight"} : tensor<64xf32>
    %n0 = eval.layer_norm %l0 {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<64xf32>
    // CHECK-NEXT: %[[H1:.*]] = eval.relu %[[N0]] : tensor<64xf32>
    %h1 = eval.relu %n0 : tensor<64xf32>
    // CHECK-NEXT: eval.return %[[H1]] : tensor<64xf32>
    eval.return %h1 : tensor<64xf32>
  }
  // CHECK: %[[KB:.*]] = eval.knowledge_base : !eval.kb
  %kb = eval.knowledge_base : !eval.kb
  // CHECK-NEXT: %[[POOL:.*]] = eval.candidate_pool : !eval.pool
  %pool = eval.candidate_pool : !eval.pool
  // CHECK-NEXT: eval.proof_loop %[[KB]], %[[POOL]] : !eval.kb, !eval.pool {
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  // CHECK-NEXT: ^bb0(%[[SLOTS:.*]]: !eval.slots<256x6>):
  ^bb0(%slots: !eval.slots<256x6>):
    // CHECK-NEXT: %[[D:.*]] = eval.derive %[[KB]], %[[SLOTS]] : !eval.kb, !eval.slots<256x6> -> !eval.derived<256x120x6>
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<256x6> -> !eval.derived<256x120x6>
    // CHECK-NEXT: %[[PE:.*]] = eval.encode @enc(%[[SLOTS]]) : !eval.slots<256x6> -> tensor<256x64xf32>
    %pe = eval.encode @enc(%slots) : !eval.slots<256x6> -> tensor<256x64xf32>
    // CHECK-NEXT: %[[CE:.*]] = eval.encode @enc(%[[D]]) : !eval.derived<256x120x6> -> tensor<256x120x64xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<256x120x6> -> tensor<256x120x64xf32>
    // CHECK-NEXT: %[[LOGITS:.*]] = eval.dot_score %[[PE]], %[[CE]] {scale = 1.250000e-01 : f32} : tensor<256x64xf32>, tensor<256x120x64xf32> -> tensor<256x120xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.125 : f32} : tensor<256x64xf32>, tensor<256x120x64xf32> -> tensor<256x120xf32>
    // CHECK-NEXT: %[[ACT:.*]], %[[LP:.*]] = eval.select %[[LOGITS]], %[[D]] : tensor<256x120xf32>, !eval.derived<256x120x6> -> tensor<256xi32>, tensor<256xf32>
    %act, %lp = eval.select %logits, %d : tensor<256x120xf32>, !eval.derived<256x120x6> -> tensor<256xi32>, tensor<256xf32>
    // CHECK-NEXT: %[[NEXT:.*]] = eval.transition %[[SLOTS]], %[[D]], %[[ACT]], %[[LP]] : !eval.slots<256x6>, !eval.derived<256x120x6>, tensor<256xi32>, tensor<256xf32> -> !eval.slots<256x6>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<256x6>, !eval.derived<256x120x6>, tensor<256xi32>, tensor<256xf32> -> !eval.slots<256x6>
    // CHECK-NEXT: %[[DONE:.*]] = eval.terminal_check %[[NEXT]] {max_depth = 20 : i64} : !eval.slots<256x6>
    %done = eval.terminal_check %next {max_depth = 20 : i64} : !eval.slots<256x6>
    // CHECK-NEXT: %[[REFILL:.*]] = eval.recycle %[[DONE]], %[[POOL]] : !eval.slots<256x6>, !eval.pool -> !eval.slots<256x6>
    %refill = eval.recycle %done, %pool : !eval.slots<256x6>, !eval.pool -> !eval.slots<256x6>
    // CHECK-NEXT: eval.yield %[[REFILL]] : !eval.slots<256x6>
    eval.yield %refill : !eval.slots<256x6>
  }
}

// Other shapes: an explicit embedding width, a non-square layer, two
// encoders (the loop may use either), and B = 1.
// CHECK-LABEL: eval.program @small attributes {A = 4 : i64, B = 1 : i64, D = 3 : i64, S = 2 : i64} {
eval.program @small attributes {A = 4 : i64, S = 2 : i64, D = 3 : i64, B = 1 : i64} {
  // CHECK: eval.encoder @narrow(%{{.*}}: !eval.state<4>) -> tensor<8xf32> {
  eval.encoder @narrow(%s: !eval.state<4>) -> tensor<8xf32> {
    // CHECK: eval.atom_embed %{{.*}} {bias = "b", consts = "c", embed_dim = 5 : i64, preds = "p", vars = "v", weight = "w"} : !eval.state<4> -> tensor<4x16xf32>
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b",
                             embed_dim = 5 : i64} : !eval.state<4> -> tensor<4x16xf32>
    // CHECK: eval.sum_atoms %{{.*}} : tensor<4x16xf32> -> tensor<16xf32>
    %h = eval.sum_atoms %e : tensor<4x16xf32> -> tensor<16xf32>
    // CHECK: eval.linear %{{.*}} : tensor<16xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "l.w", bias = "l.b"} : tensor<16xf32> -> tensor<8xf32>
    eval.return %l : tensor<8xf32>
  }
  // CHECK: eval.encoder @unused(%{{.*}}: !eval.state<4>) -> tensor<16xf32> {
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
    // CHECK: eval.derive %{{.*}}, %{{.*}} : !eval.kb, !eval.slots<1x4> -> !eval.derived<1x2x4>
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<1x4> -> !eval.derived<1x2x4>
    // CHECK: eval.encode @narrow(%{{.*}}) : !eval.slots<1x4> -> tensor<1x8xf32>
    %pe = eval.encode @narrow(%slots) : !eval.slots<1x4> -> tensor<1x8xf32>
    // CHECK: eval.encode @narrow(%{{.*}}) : !eval.derived<1x2x4> -> tensor<1x2x8xf32>
    %ce = eval.encode @narrow(%d) : !eval.derived<1x2x4> -> tensor<1x2x8xf32>
    // CHECK: eval.dot_score {{.*}} {scale = 5.000000e-01 : f32}
    %logits = eval.dot_score %pe, %ce {scale = 0.5 : f32} : tensor<1x8xf32>, tensor<1x2x8xf32> -> tensor<1x2xf32>
    %act, %lp = eval.select %logits, %d : tensor<1x2xf32>, !eval.derived<1x2x4> -> tensor<1xi32>, tensor<1xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<1x4>, !eval.derived<1x2x4>, tensor<1xi32>, tensor<1xf32> -> !eval.slots<1x4>
    // CHECK: eval.terminal_check %{{.*}} {max_depth = 3 : i64} : !eval.slots<1x4>
    %done = eval.terminal_check %next {max_depth = 3 : i64} : !eval.slots<1x4>
    %refill = eval.recycle %done, %pool : !eval.slots<1x4>, !eval.pool -> !eval.slots<1x4>
    eval.yield %refill : !eval.slots<1x4>
  }
}

// B set once: the loop's types write `?` for it; the scale (1/sqrt(d)) and
// max_depth (D) left out.
// CHECK-LABEL: eval.program @once attributes {A = 2 : i64, B = 5 : i64, D = 4 : i64, S = 3 : i64} {
// CHECK:      ^bb0(%{{.+}}: !eval.slots<?x2>):
// CHECK:        eval.encode @enc(%{{.+}}) : !eval.derived<?x3x2> -> tensor<?x3x8xf32>
// CHECK-NEXT:   eval.dot_score %{{.+}}, %{{.+}} : tensor<?x8xf32>, tensor<?x3x8xf32> -> tensor<?x3xf32>
// CHECK:        eval.terminal_check %{{.+}} : !eval.slots<?x2>
eval.program @once attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<?x2>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<?x2> -> !eval.derived<?x3x2>
    %pe = eval.encode @enc(%slots) : !eval.slots<?x2> -> tensor<?x8xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<?x3x2> -> tensor<?x3x8xf32>
    %logits = eval.dot_score %pe, %ce : tensor<?x8xf32>, tensor<?x3x8xf32> -> tensor<?x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<?x3xf32>, !eval.derived<?x3x2> -> tensor<?xi32>, tensor<?xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<?x2>, !eval.derived<?x3x2>, tensor<?xi32>, tensor<?xf32> -> !eval.slots<?x2>
    %done = eval.terminal_check %next : !eval.slots<?x2>
    %refill = eval.recycle %done, %pool : !eval.slots<?x2>, !eval.pool -> !eval.slots<?x2>
    eval.yield %refill : !eval.slots<?x2>
  }
}
