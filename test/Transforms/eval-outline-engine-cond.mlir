// eval-outline-engine-cond: loop rotation. The engine for the initial slots
// runs before the loop; the engine for the next step runs at the end of the
// step under eval.cond "engine" on the flag eval.advance computes on the
// device; its result is carried to the next step.
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-outline-engine-cond))' \
// RUN: | FileCheck %s

// CHECK-LABEL: eval.program @rotate
// CHECK:      %[[KB:[a-zA-Z0-9_]+]] = eval.knowledge_base
// CHECK-NEXT: %[[POOL:[a-zA-Z0-9_]+]] = eval.candidate_pool
// CHECK-NEXT: %[[S0:[a-zA-Z0-9_]+]], %[[F0:[a-zA-Z0-9_]+]] = eval.init_slots %[[POOL]]
// CHECK-NEXT: %[[D0:[a-zA-Z0-9_]+]] = eval.engine %[[KB]], %[[S0]], %[[POOL]] : !eval.slots<5x2> -> !eval.derived<5x3x2>
// CHECK-NEXT: eval.device_loop %[[F0]] iter(%[[S0]], %[[D0]] : !eval.slots<5x2>, !eval.derived<5x3x2>) {
// CHECK-NEXT: ^bb0(%[[SLOTS:[a-zA-Z0-9_]+]]: !eval.slots<5x2>, %[[D:[a-zA-Z0-9_]+]]: !eval.derived<5x3x2>):
// CHECK-NEXT:   %[[ACT:[a-zA-Z0-9_]+]], %[[LP:[a-zA-Z0-9_]+]] = eval.score_select @enc(%[[SLOTS]], %[[D]])
// CHECK-NEXT:   %[[NEXT:[a-zA-Z0-9_]+]], %[[ACTIVE:[a-zA-Z0-9_]+]] = eval.advance %[[SLOTS]], %[[D]], %[[ACT]], %[[LP]], %[[POOL]]
// CHECK-NEXT:   %[[D2:[a-zA-Z0-9_]+]] = eval.cond "engine" if %[[ACTIVE]] else(%[[D]] : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> {
// CHECK-NEXT:     %[[DN:[a-zA-Z0-9_]+]] = eval.engine %[[KB]], %[[NEXT]], %[[POOL]]
// CHECK-NEXT:     eval.cond_yield %[[DN]] : !eval.derived<5x3x2>
// CHECK-NEXT:   }
// CHECK-NEXT:   eval.device_yield %[[ACTIVE]], %[[NEXT]], %[[D2]] : !eval.slots<5x2>, !eval.derived<5x3x2>
// CHECK-NEXT: }
eval.program @rotate attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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

// A rotated loop (no engine left in the step) is left as it is.
// CHECK-LABEL: eval.program @rotated
// CHECK:       eval.engine
// CHECK:       eval.device_loop
// CHECK:       eval.cond "engine"
// CHECK-NOT:   eval.cond "
eval.program @rotated attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    %act, %lp = eval.score_select @enc(%slots, %d) {scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next, %active = eval.advance %slots, %d, %act, %lp, %pool {max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %d2 = eval.cond "engine" if %active else(%d : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> {
      %n = eval.engine %kb, %next, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
      eval.cond_yield %n : !eval.derived<5x3x2>
    }
    eval.device_yield %active, %next, %d2 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

// The engine must read the loop-carried slots: these are made in the step.
eval.program @not_carried attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    %act, %lp = eval.score_select @enc(%slots, %d) {scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next, %active = eval.advance %slots, %d, %act, %lp, %pool {max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    // expected-error @+1 {{'eval.engine' op cannot outline: the engine must read loop-carried slots}}
    %n = eval.engine %kb, %next, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
    eval.device_yield %active, %next, %n : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}
