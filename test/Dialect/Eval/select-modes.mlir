// eval.select's `modes` (docs/sampling.md): the selection modes a program
// supports, "greedy" always, "sampled" for rollouts; left out, both. The
// verifier's rules, one split each, and eval-fuse-step carrying them to
// eval.score_select (the attribute round-trips through the custom form).
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-fuse-step))' \
// RUN: | FileCheck %s
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN: | FileCheck %s --check-prefix=ROUND

// Greedy only: kept on the fused op.
// CHECK-LABEL: eval.program @greedy_only
// CHECK:       eval.score_select @enc({{.*}}) {modes = ["greedy"], scale = 2.500000e-01 : f32}
// ROUND-LABEL: eval.program @greedy_only
// ROUND:       eval.select {{.*}} {modes = ["greedy"]} :
eval.program @greedy_only attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    %act, %lp = eval.select %logits, %d {modes = ["greedy"]} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Both, written out.
// CHECK-LABEL: eval.program @both
// CHECK:       eval.score_select @enc({{.*}}) {modes = ["greedy", "sampled"], scale = 2.500000e-01 : f32}
eval.program @both attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    %act, %lp = eval.select %logits, %d {modes = ["greedy", "sampled"]} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// Left out: both, and nothing written.
// CHECK-LABEL: eval.program @default
// CHECK:       eval.score_select @enc({{.*}}) {scale = 2.500000e-01 : f32}
eval.program @default attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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

eval.program @no_greedy attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'eval.select' op attribute 'modes' must contain "greedy": evaluation always selects greedily (spec §4)}}
    %act, %lp = eval.select %logits, %d {modes = ["sampled"]} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

eval.program @twice attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'eval.select' op attribute 'modes' lists "greedy" twice}}
    %act, %lp = eval.select %logits, %d {modes = ["greedy", "greedy"]} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

eval.program @unknown attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'eval.select' op attribute 'modes' has unknown mode "argmax" (greedy, sampled)}}
    %act, %lp = eval.select %logits, %d {modes = ["greedy", "argmax"]} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

eval.program @empty attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'eval.select' op attribute 'modes' must list at least "greedy"}}
    %act, %lp = eval.select %logits, %d {modes = []} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

eval.program @not_strings attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
    // expected-error @+1 {{'eval.select' op attribute 'modes' failed to satisfy constraint: string array attribute}}
    %act, %lp = eval.select %logits, %d {modes = [1 : i32]} : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}
