// eval-specialize-shapes: B is written once, in the program's attribute, and
// `?` in the loop's types; the pass writes it into every type (slots,
// derived, the per-slot tensors) with the score scale the spec derives
// (1/sqrt(d): d = 8 gives 0.353553385) and the terminal check's D. With
// slots=N it sets B = N first, whether the types wrote `?` or a number.
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes))' \
// RUN: | FileCheck %s
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=7}))' \
// RUN: | FileCheck %s --check-prefix=SLOTS

// CHECK-LABEL: eval.program @once attributes {A = 2 : i64, B = 5 : i64, D = 4 : i64, S = 3 : i64}
// CHECK:      ^bb0(%[[ARG:.+]]: !eval.slots<5x2>):
// CHECK-NEXT:   eval.derive {{.*}} : !eval.kb, !eval.slots<5x2> -> !eval.derived<5x3x2>
// CHECK-NEXT:   eval.encode @enc({{.*}}) : !eval.slots<5x2> -> tensor<5x8xf32>
// CHECK-NEXT:   eval.encode @enc({{.*}}) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
// CHECK-NEXT:   eval.dot_score {{.*}} {scale = 0.353553385 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
// CHECK-NEXT:   eval.select {{.*}} -> tensor<5xi32>, tensor<5xf32>
// CHECK-NEXT:   eval.transition {{.*}} -> !eval.slots<5x2>
// CHECK-NEXT:   eval.terminal_check {{.*}} {max_depth = 4 : i64} : !eval.slots<5x2>
// CHECK-NEXT:   eval.recycle {{.*}} -> !eval.slots<5x2>
// CHECK-NEXT:   eval.yield {{.*}} : !eval.slots<5x2>
// SLOTS-LABEL: eval.program @once attributes {A = 2 : i64, B = 7 : i64, D = 4 : i64, S = 3 : i64}
// SLOTS-NOT:   5x
// SLOTS:       eval.yield {{.*}} : !eval.slots<7x2>
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

// -----

// B spelled out in the types, a scale written by hand: slots=7 still
// re-targets every type; the written scale stays.
// CHECK-LABEL: eval.program @spelled
// CHECK:         eval.dot_score {{.*}} {scale = 2.500000e-01 : f32} : tensor<5x8xf32>
// SLOTS-LABEL: eval.program @spelled attributes {A = 2 : i64, B = 7 : i64
// SLOTS:         eval.dot_score {{.*}} {scale = 2.500000e-01 : f32} : tensor<7x8xf32>, tensor<7x3x8xf32> -> tensor<7x3xf32>
// SLOTS:         eval.terminal_check {{.*}} {max_depth = 4 : i64} : !eval.slots<7x2>
eval.program @spelled attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
