// eval-fuse-step: the spec's eight-op step becomes engine, score_select
// (encode x2 + dot_score + select) and advance (transition + terminal_check
// + recycle, with the device flag) in an eval.device_loop started by
// eval.init_slots.
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-fuse-step))' \
// RUN: | FileCheck %s

// CHECK-LABEL: eval.program @step
// CHECK:      %[[KB:[a-zA-Z0-9_]+]] = eval.knowledge_base
// CHECK-NEXT: %[[POOL:[a-zA-Z0-9_]+]] = eval.candidate_pool
// CHECK-NEXT: %[[S0:[a-zA-Z0-9_]+]], %[[F0:[a-zA-Z0-9_]+]] = eval.init_slots %[[POOL]] : !eval.pool -> !eval.slots<5x2>
// CHECK-NEXT: eval.device_loop %[[F0]] iter(%[[S0]] : !eval.slots<5x2>) {
// CHECK-NEXT: ^bb0(%[[SLOTS:[a-zA-Z0-9_]+]]: !eval.slots<5x2>):
// CHECK-NEXT:   %[[D:[a-zA-Z0-9_]+]] = eval.engine %[[KB]], %[[SLOTS]], %[[POOL]] : !eval.slots<5x2> -> !eval.derived<5x3x2>
// CHECK-NEXT:   %[[ACT:[a-zA-Z0-9_]+]], %[[LP:[a-zA-Z0-9_]+]] = eval.score_select @enc(%[[SLOTS]], %[[D]]) {scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
// CHECK-NEXT:   %[[NEXT:[a-zA-Z0-9_]+]], %[[ACTIVE:[a-zA-Z0-9_]+]] = eval.advance %[[SLOTS]], %[[D]], %[[ACT]], %[[LP]], %[[POOL]] {max_depth = 4 : i64}
// CHECK-NEXT:   eval.device_yield %[[ACTIVE]], %[[NEXT]] : !eval.slots<5x2>
// CHECK-NEXT: }
// CHECK-NOT:  eval.proof_loop
eval.program @step attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// An already fused program is left as it is.
// CHECK-LABEL: eval.program @fused
// CHECK:       eval.device_loop
// CHECK-COUNT-1: eval.engine
// CHECK:       eval.device_yield
eval.program @fused attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    %d = eval.engine %kb, %slots, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
    %act, %lp = eval.score_select @enc(%slots, %d) {scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next, %active = eval.advance %slots, %d, %act, %lp, %pool {max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    eval.device_yield %active, %next : !eval.slots<5x2>
  }
}

// -----

// Rule 4: parent and child states must be scored by one encoder.
eval.program @two_encoders attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.encoder @other(%s: !eval.state<2>) -> tensor<8xf32> {
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
    // expected-error @+1 {{'eval.encode' op cannot fuse the step: parent and child states must use one encoder, got @enc and @other}}
    %ce = eval.encode @other(%d) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Rule 5: the data flow of spec §5's step (the recycled slots are not the
// terminal check of the transition's result).
eval.program @wiring attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    // expected-error @+1 {{'eval.recycle' op cannot fuse the step: operand #0 must be the 'eval.terminal_check' result}}
    %refill = eval.recycle %slots, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Rule 2 (ProofStep.h): the parent embeddings are the encoder's, of the
// loop's slots.
eval.program @parent attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    %pe = arith.constant dense<0.0> : tensor<5x8xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
    // expected-error @+1 {{'eval.dot_score' op cannot fuse the step: the parent embeddings must be 'eval.encode' of the loop's slots}}
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Rule 3: the child embeddings are the encoder's, of the derived states.
eval.program @children attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    %ce = arith.constant dense<0.0> : tensor<5x3x8xf32>
    // expected-error @+1 {{'eval.dot_score' op cannot fuse the step: the child embeddings must be 'eval.encode' of the 'eval.derive' result}}
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Rule 6: no eval.encode besides the parent's and the children's, even an
// unused one of the same encoder (the fusion would drop it, the runtime would
// never run it).
eval.program @extra_encode attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'eval.encode' op cannot fuse the step: an 'eval.encode' other than the parent's and the children's is not part of spec §5's step}}
    %extra = eval.encode @enc(%slots) : !eval.slots<5x2> -> tensor<5x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Rule 6: no op outside spec §5's step.
eval.program @extra_op attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'arith.constant' op cannot fuse the step: 'arith.constant' is not part of spec §5's step}}
    %unused = arith.constant 0 : i32
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}
