// One split per verifier rule of the ops in EvalLoweringOps.td.
// RUN: proofc-opt %s -split-input-file -verify-diagnostics

// Each program below is the smallest valid one (a fused step) with one
// fault, in the op carrying the expected error.

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.fold_columns' op needs col_begin >= 0, cols > 0 and width > 0, got 0, 0, 8}}
  eval.fold_columns "t" {table = "pred_emb", weight = "w", bias = "", col_begin = 0 : i64, cols = 0 : i64, width = 8 : i64, rows = "R2"}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.fold_columns' op rows 'X' is neither a decimal nor a run-time symbol}}
  eval.fold_columns "t" {table = "pred_emb", weight = "w", bias = "", col_begin = 0 : i64, cols = 8 : i64, width = 8 : i64, rows = "X"}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.fold_columns "t" {table = "pred_emb", weight = "w", bias = "", col_begin = 0 : i64, cols = 8 : i64, width = 8 : i64, rows = "R2"}
  // expected-error @+1 {{'eval.transpose_weight' op tensor 't' is already made by an earlier prologue op}}
  eval.transpose_weight "t" {table = "m", rows = 8 : i64, cols = 8 : i64}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.transpose_weight' op 'm' is both made and read}}
  eval.transpose_weight "m" {table = "m", rows = 8 : i64, cols = 8 : i64}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

// A folded table must have the rows its role needs (arg0_var: 2A = 4).
eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.fold_columns "v0" {table = "var_emb", weight = "w", bias = "", col_begin = 8 : i64, cols = 8 : i64, width = 8 : i64, rows = "E"}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    // expected-error @+1 {{'eval.folded_atom_embed' op arg0_var 'v0' is folded as [E, 8], expected [4, 8]}}
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    // expected-error @+1 {{'eval.folded_atom_embed' op attribute 'arg1_var' must name a weight tensor, got an empty name}}
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = ""} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  // expected-error @+1 {{'eval.device_loop' op the body's arguments ('!eval.slots<5x2>', '!eval.slots<5x2>') must have the types of the inits ('!eval.slots<5x2>')}}
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %extra: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    // expected-error @+1 {{'eval.device_yield' op yielded values () must have the types of the loop's inits ('!eval.slots<5x2>')}}
    eval.device_yield %f0
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  // expected-error @+1 {{'eval.engine' op '!eval.derived<5x3x3>' must have the B and A of '!eval.slots<5x2>'}}
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x3>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    // expected-error @+1 {{'eval.score_select' op @nope does not name an 'eval.encoder' of the program}}
    %act, %lp = eval.score_select @nope(%slots, %d) {scale = 0.25 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    eval.device_yield %f0, %slots, %d : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    // expected-error @+1 {{'eval.score_select' op action and logp must be 'tensor<5xi32>' and 'tensor<5xf32>', got 'tensor<4xi32>' and 'tensor<5xf32>'}}
    %act, %lp = eval.score_select @enc(%slots, %d) {scale = 0.25 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<4xi32>, tensor<5xf32>
    eval.device_yield %f0, %slots, %d : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    %act, %lp = eval.score_select @enc(%slots, %d) {scale = 0.25 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    // expected-error @+1 {{'eval.advance' op max_depth = 5 must be the program's D = 4}}
    %next, %active = eval.advance %slots, %d, %act, %lp, %pool {max_depth = 5 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    eval.device_yield %active, %next, %d : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    // expected-error @+1 {{'eval.cond' op body must end in 'eval.cond_yield'}}
    %d2 = eval.cond "engine" if %f0 else(%d : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> {
      %n = eval.engine %kb, %slots, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
    }
    eval.device_yield %f0, %slots, %d2 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    %d2 = eval.cond "engine" if %f0 else(%d : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> {
      // expected-error @+1 {{'eval.cond_yield' op yielded values ('!eval.slots<5x2>') must have the types of the cond's results ('!eval.derived<5x3x2>')}}
      eval.cond_yield %slots : !eval.slots<5x2>
    }
    eval.device_yield %f0, %slots, %d2 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

// Buffers, modules and launches.
module attributes {gpu.container_module} {
  eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
    // expected-error @+1 {{'eval.buffer' op a weights init needs dtype f32, got 'i32'}}
    eval.buffer @w : i32 ["E", "8"] init "weights:t"
    eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
      %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
      %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
      eval.return %h : tensor<8xf32>
    }
    eval.launch_loop "loop" flag @w {
    }
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.buffer' op elements factor 'K' is neither a decimal nor a run-time symbol (B, S, A, A2, D, d, L, E, R, R1, R2, RE1, NF, NR, NR1, NRB, N, MEMO, ACTIONS, AL, AN)}}
  eval.buffer @b : i32 ["B", "K"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @b {
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.buffer' op init 'pool' is neither empty, 'weights:<name>' nor a binding of the runtime (kb.facts, pool.triples, out.status, ...: BundleNames.h)}}
  eval.buffer @b : i32 ["1"] init "pool"
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @b {
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @b : i32 ["B"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  // expected-error @+1 {{'eval.launch_loop' op flag @b must be an i32 buffer of ["1"]}}
  eval.launch_loop "loop" flag @b {
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  // expected-error @+1 {{'eval.cuda_module' op must not pass -arch (the runtime picks the device's)}}
  eval.cuda_module @step "step.cu" ["-arch=sm_90"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.cuda_module @step "step.cu" []
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op 'nothere' does not name an 'eval.buffer' of the program}}
    eval.launch "a" @step::@proofc_advance grid ["1"] block 256 args ["buf:nothere"] {role = "advance"}
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.cuda_module @step "step.cu" []
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op argument 'cond:engine' names no cond of the program}}
    eval.launch "a" @step::@proofc_advance grid ["1"] block 256 args ["sym:N", "i32:7", "cond:engine"] {role = "advance"}
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.cuda_module @step "step.cu" []
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op argument 'i32:1.5' is not an int32 literal}}
    eval.launch "a" @step::@proofc_advance grid ["1"] block 256 args ["i32:1.5"] {role = "advance"}
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op kernel module @gone names neither an 'eval.cuda_module' of the program nor a 'gpu.module' / 'gpu.binary'}}
    eval.launch "a" @gone::@k grid ["1"] block 256 args [] {role = "policy"}
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.cuda_module @step "step.cu" []
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch "a" @step::@k grid ["1"] block 256 args [] {role = "policy"}
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op launch name 'a' is used more than once}}
    eval.launch "a" @step::@k grid ["1"] block 2048 args [] {role = "policy"}
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.cuda_module @step "step.cu" []
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op block must be in [1, 1024] and shared bytes >= 0, got 2048 and 0}}
    eval.launch "a" @step::@k grid ["1"] block 2048 args [] {role = "policy"}
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch_cond' op cond name 'loop' is used more than once}}
    eval.launch_cond "loop" flag @f {
    }
  }
}

// -----

// A program holds one proof loop, in any of its forms.
// expected-error @+1 {{'eval.program' op has 2 'eval.proof_loop' ops; expected exactly one}}
eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
  eval.launch_loop "loop" flag @f {
  }
}

// -----

// The role tags of proofc/contract/BundleNames.h, the runtime's list.
eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.buffer @f : i32 ["1"]
  eval.cuda_module @step "step.cu" []
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
    // expected-error @+1 {{'eval.launch' op unknown role 'derive' (init, engine, advance, advance_engine, finish, policy, persistent, copy)}}
    eval.launch "a" @step::@k grid ["1"] block 256 args [] {role = "derive"}
  }
}

// -----

// A binding's dtype is the runtime's (out.logp is f32).
eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.buffer' op binding 'out.logp' needs dtype f32, got 'i32'}}
  eval.buffer @b : i32 ["N"] init "out.logp"
  eval.buffer @f : i32 ["1"]
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.launch_loop "loop" flag @f {
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.fold_atom_layer' op 'w' is both made and read}}
  eval.fold_atom_layer "w" {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1", weight = "w", relu, width = 8 : i64}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.fold_atom_layer' op needs width > 0, got 0}}
  eval.fold_atom_layer "t" {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1", weight = "w", width = 0 : i64}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}

// -----

eval.program @p attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  // expected-error @+1 {{'eval.fold_atom_layer' op attribute 'arg1_var' must name a weight tensor, got an empty name}}
  eval.fold_atom_layer "t" {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "", weight = "w", width = 8 : i64}
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  eval.device_loop %f0 iter(%s0 : !eval.slots<5x2>) {
  ^bb0(%slots: !eval.slots<5x2>):
    eval.device_yield %f0, %slots : !eval.slots<5x2>
  }
}
