// eval-plan-buffers: one eval.buffer per component of every value, declared
// once at the program level with symbolic extents (weights and folded tables
// included); loop-carried values, cond results and the in-place advance
// share buffers; eval.copy only where a value is still read after its
// shared buffer is written in the same step.
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=fma}))' \
// RUN: | FileCheck %s

// The pipeline's form: no copy. The policy kernel reads the linear weight
// transposed.
// CHECK-LABEL: eval.program @planned
// CHECK:      eval.transpose_weight "mlp.0.weight.T" {cols = 8 : i64, rows = 8 : i64, table = "mlp.0.weight"}
// CHECK-NEXT: eval.buffer @kb_facts : i32 ["NF", "3"] init "kb.facts"
// CHECK:      eval.buffer @kb_rule_ids_by_pred : i32 ["NR"] init "kb.ruleIdsByPred"
// CHECK-NEXT: eval.buffer @pool : i32 ["N", "3"] init "pool.triples"
// CHECK-NEXT: eval.buffer @next_cand : i32 ["1"]
// CHECK-NEXT: eval.buffer @out_status : i32 ["N"] init "out.status"
// CHECK-NEXT: eval.buffer @out_depth : i32 ["N"] init "out.depth"
// CHECK-NEXT: eval.buffer @out_logp : f32 ["N"] init "out.logp"
// CHECK-NEXT: eval.buffer @state : i32 ["B", "A", "3"]
// CHECK-NEXT: eval.buffer @slot_cand : i32 ["B"]
// CHECK-NEXT: eval.buffer @depth : i32 ["B"]
// CHECK-NEXT: eval.buffer @logp : f32 ["B"]
// CHECK-NEXT: eval.buffer @loop_flag : i32 ["1"]
// CHECK-NEXT: eval.buffer @derived : i32 ["B", "S", "A", "3"]
// CHECK-NEXT: eval.buffer @count : i32 ["B"]
// CHECK-NEXT: eval.buffer @action : i32 ["B"]
// CHECK-NEXT: eval.buffer @action_logp : f32 ["B"]
// CHECK-NEXT: eval.buffer @w_atom_pred_proj : f32 ["R2", "8"] init "weights:atom.pred_proj"
// CHECK-NEXT: eval.buffer @w_atom_arg0_const : f32 ["E", "8"] init "weights:atom.arg0_const"
// CHECK-NEXT: eval.buffer @w_atom_arg1_const : f32 ["E", "8"] init "weights:atom.arg1_const"
// CHECK-NEXT: eval.buffer @w_atom_arg0_var : f32 ["4", "8"] init "weights:atom.arg0_var"
// CHECK-NEXT: eval.buffer @w_atom_arg1_var : f32 ["4", "8"] init "weights:atom.arg1_var"
// CHECK-NEXT: eval.buffer @w_mlp_0_weight_T : f32 ["8", "8"] init "weights:mlp.0.weight.T"
// CHECK-NEXT: eval.buffer @w_mlp_0_bias : f32 ["8"] init "weights:mlp.0.bias"
// CHECK-NEXT: eval.buffer @w_mlp_0_ln_weight : f32 ["8"] init "weights:mlp.0.ln.weight"
// CHECK-NEXT: eval.buffer @w_mlp_0_ln_bias : f32 ["8"] init "weights:mlp.0.ln.bias"
// CHECK-NOT:  eval.buffer
// CHECK:      eval.knowledge_base {eval.buffers = {{\[\[}}@kb_facts, @kb_ps_offsets, @kb_po_facts, @kb_po_offsets, @kb_pred_offsets, @kb_rule_heads, @kb_rule_body_offsets, @kb_rule_body, @kb_rule_num_vars, @kb_rule_pred_offsets, @kb_rule_ids_by_pred]]}
// CHECK-NEXT: eval.candidate_pool {eval.buffers = {{\[\[}}@pool, @next_cand, @out_status, @out_depth, @out_logp]]}
// CHECK-NEXT: %[[S0:[a-zA-Z0-9_]+]], %[[F0:[a-zA-Z0-9_]+]] = eval.init_slots %{{.*}} {eval.buffers = {{\[\[}}@state, @slot_cand, @depth, @logp], [@loop_flag]]}
// CHECK-NEXT: %[[D0:[a-zA-Z0-9_]+]] = eval.engine %{{.*}} {eval.buffers = {{\[\[}}@derived, @count]]}
// CHECK-NEXT: eval.device_loop %[[F0]] iter(%[[S0]], %[[D0]] : {{.*}}) attributes {eval.arg_buffers = {{\[\[}}@state, @slot_cand, @depth, @logp], [@derived, @count]]} {
// CHECK:        eval.score_select @enc({{.*}}) {eval.buffers = {{\[\[}}@action], [@action_logp]], eval.weight_buffers = {atom.arg0_const = @w_atom_arg0_const, atom.arg0_var = @w_atom_arg0_var, atom.arg1_const = @w_atom_arg1_const, atom.arg1_var = @w_atom_arg1_var, atom.pred_proj = @w_atom_pred_proj, mlp.0.bias = @w_mlp_0_bias, mlp.0.ln.bias = @w_mlp_0_ln_bias, mlp.0.ln.weight = @w_mlp_0_ln_weight, mlp.0.weight = @w_mlp_0_weight_T}
// CHECK-NEXT:   eval.advance {{.*}} {eval.buffers = {{\[\[}}@state, @slot_cand, @depth, @logp], [@loop_flag]]
// CHECK-NEXT:   eval.cond "engine" {{.*}} attributes {eval.buffers = {{\[\[}}@derived, @count]]} {
// CHECK-NEXT:     eval.engine {{.*}} {eval.buffers = {{\[\[}}@derived, @count]]}
// CHECK-NOT:  eval.copy
eval.program @planned attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %r = eval.relu %e : tensor<2x8xf32>
    %h = eval.sum_atoms %r : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    %n = eval.layer_norm %l {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<8xf32>
    %o = eval.relu %n : tensor<8xf32>
    eval.return %o : tensor<8xf32>
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

// The engine of the cond reads the old slots after advance has written the
// new ones: advance works on a copy (state_1, ...) and the yield copies the
// result back into the loop-carried buffers.
// CHECK-LABEL: eval.program @copies
// CHECK:      eval.buffer @state_1 : i32 ["B", "A", "3"]
// CHECK-NEXT: eval.buffer @slot_cand_1 : i32 ["B"]
// CHECK-NEXT: eval.buffer @depth_1 : i32 ["B"]
// CHECK-NEXT: eval.buffer @logp_1 : f32 ["B"]
// CHECK:      eval.device_loop {{.*}} attributes {eval.arg_buffers = {{\[\[}}@state, @slot_cand, @depth, @logp], [@derived, @count]]} {
// CHECK-NEXT: ^bb0(%[[SLOTS:[a-zA-Z0-9_]+]]: !eval.slots<5x2>, %{{.*}}: !eval.derived<5x3x2>):
// CHECK:        %[[C:[a-zA-Z0-9_]+]] = eval.copy %[[SLOTS]] {eval.buffers = {{\[\[}}@state_1, @slot_cand_1, @depth_1, @logp_1]]}
// CHECK-NEXT:   %[[NEXT:[a-zA-Z0-9_]+]], %[[ACTIVE:[a-zA-Z0-9_]+]] = eval.advance %[[C]], {{.*}} {eval.buffers = {{\[\[}}@state_1, @slot_cand_1, @depth_1, @logp_1], [@loop_flag]]
// CHECK:          eval.engine %{{.*}}, %[[SLOTS]], %{{.*}} {eval.buffers = {{\[\[}}@derived, @count]]}
// CHECK:        %[[BACK:[a-zA-Z0-9_]+]] = eval.copy %[[NEXT]] {eval.buffers = {{\[\[}}@state, @slot_cand, @depth, @logp]]}
// CHECK-NEXT:   eval.device_yield %[[ACTIVE]], %[[BACK]], %{{.*}}
eval.program @copies attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %r = eval.relu %e : tensor<2x8xf32>
    %h = eval.sum_atoms %r : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    %n = eval.layer_norm %l {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<8xf32>
    %o = eval.relu %n : tensor<8xf32>
    eval.return %o : tensor<8xf32>
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
      %n = eval.engine %kb, %slots, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
      eval.cond_yield %n : !eval.derived<5x3x2>
    }
    eval.device_yield %active, %next, %d2 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

// The policy kernel reads folded tables.
eval.program @unfolded attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    // expected-error @+1 {{'eval.atom_embed' op eval-plan-buffers: the policy kernel reads folded tables (run eval-fold-atom-embedding first)}}
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "w", bias = "b"} : !eval.state<2> -> tensor<2x8xf32>
    %r = eval.relu %e : tensor<2x8xf32>
    %h = eval.sum_atoms %r : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    %n = eval.layer_norm %l {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<8xf32>
    %o = eval.relu %n : tensor<8xf32>
    eval.return %o : tensor<8xf32>
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

// The step must be fused first.
// expected-error @+1 {{'eval.program' op eval-plan-buffers needs the fused step (run eval-fuse-step first)}}
eval.program @unfused attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
