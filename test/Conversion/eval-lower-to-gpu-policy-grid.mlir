// eval-lower-to-gpu from B = 1024 (GpuHeuristics.h's choosePolicyGridResize):
// the advance-engine sizes the next step's policy grid (kernel_abi.h's
// PolicyGridWord, docs/gpu-kernels.md "The step policy grid"). Init and the
// advance-engine end with the policy's parts (1: S = 3) or its children a
// part (255), the grid's words and list (B x parts entries), and "node:"
// naming the policy launch, whose graph node they resize; the policy kernel
// takes the words and the list after its arrival counts and maps its
// blocks by them. The
// program is eval-lower-to-gpu.mlir's first, at B = 4096.
// RUN: proofc-opt %s -verify-diagnostics -eval-lower-to-gpu | FileCheck %s

// CHECK:      eval.buffer @policy_grid : i32 ["2"]
// CHECK-NEXT: eval.buffer @policy_list : i32 ["B", "1", "2"]
// CHECK:      eval.launch "init" @step::@proofc_init {{.*}} "cond:loop", "cond:loop", "i32:1", "buf:policy_grid", "buf:policy_list", "node:score_select", "buf:engine_grid", "buf:engine_list", "node:"] {role = "init"}
// CHECK:      eval.launch "score_select" @policy::@proofc_policy grid ["B", "1"] {{.*}} "buf:score_select_logits", "buf:score_select_arrivals", "buf:policy_grid", "buf:policy_list"] {role = "policy"}
// CHECK-NEXT: eval.launch "advance_engine" @advance::@proofc_advance_engine {{.*}} "cond:loop", "cond:loop", "i32:255", "buf:policy_grid", "buf:policy_list", "node:score_select", "sym:B", "buf:engine_grid", "buf:engine_list", "node:"] {role = "advance_engine"}
// CHECK:      gpu.func @proofc_policy({{.*}}, %[[ARRIVALS:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>, %[[GRID:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>, %[[LIST:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>) workgroup(
// Block b is part b / B of slot b % B (every slot), or runs the list's
// entry b (the mode n >= 0: n entries listed; none when n = 0), which names
// the every-slot block it stands for and the slot's children. The
// candidate, the count, the mode and the entry are loaded with the guard,
// in one round of loads; the mode then picks.
// CHECK-NEXT:   %[[GUARD:[a-zA-Z0-9_]+]] = memref.load
// CHECK-NEXT:   %[[BID:[a-zA-Z0-9_]+]] = gpu.block_id x
// CHECK-NEXT:   arith.constant 4096 : index
// CHECK-NEXT:   %[[SLOT:[a-zA-Z0-9_]+]] = arith.remui %[[BID]]
// CHECK-NEXT:   arith.constant 4096 : index
// CHECK-NEXT:   %[[PART:[a-zA-Z0-9_]+]] = arith.divui %[[BID]]
// CHECK:        %[[CAND:[a-zA-Z0-9_]+]] = memref.load %{{.*}}[%[[SLOT]]] : memref<4096xi32
// CHECK:        %[[K:[a-zA-Z0-9_]+]] = memref.load %{{.*}}[%[[SLOT]]] : memref<4096xi32
// CHECK:        memref.reinterpret_cast %[[GRID]] {{.*}} sizes: [2]
// CHECK:        %[[MODE:[a-zA-Z0-9_]+]] = memref.load %{{.*}}[%{{.*}}] : memref<2xi32
// The list: B x parts entries of two words (S = 3: one part).
// CHECK:        %[[ENTRIES:[a-zA-Z0-9_]+]] = memref.reinterpret_cast %[[LIST]] {{.*}} sizes: [4096, 2]
// CHECK:        %[[EBLOCK:[a-zA-Z0-9_]+]] = memref.load %[[ENTRIES]][%[[BID]], %{{.*}}] : memref<4096x2xi32
// CHECK-NEXT:   %[[EBLOCKI:[a-zA-Z0-9_]+]] = arith.index_cast %[[EBLOCK]]
// CHECK:        %[[ECOUNT:[a-zA-Z0-9_]+]] = memref.load %[[ENTRIES]][%[[BID]], %{{.*}}] : memref<4096x2xi32
// CHECK:        %[[LISTED:[a-zA-Z0-9_]+]] = arith.cmpi sge, %[[MODE]]
// CHECK:        %[[ESLOT:[a-zA-Z0-9_]+]] = arith.remui %[[EBLOCKI]]
// CHECK-NEXT:   %[[RUNSLOT:[a-zA-Z0-9_]+]] = arith.select %[[LISTED]], %[[ESLOT]], %[[SLOT]] : index
// CHECK:        %[[EPART:[a-zA-Z0-9_]+]] = arith.divui %[[EBLOCKI]]
// CHECK-NEXT:   arith.select %[[LISTED]], %[[EPART]], %[[PART]] : index
// CHECK-NEXT:   arith.select %[[LISTED]], %[[ECOUNT]], %[[K]] : i32
// The run condition: a listed block runs entry b < n, an every-slot block
// a slot that holds a candidate.
// CHECK:        %[[BIDI:[a-zA-Z0-9_]+]] = arith.index_cast %[[BID]] : index to i32
// CHECK-NEXT:   %[[INLIST:[a-zA-Z0-9_]+]] = arith.cmpi slt, %[[BIDI]], %[[MODE]]
// CHECK:        %[[HOLDS:[a-zA-Z0-9_]+]] = arith.cmpi sge, %[[CAND]]
// CHECK-NEXT:   %[[RUNS:[a-zA-Z0-9_]+]] = arith.select %[[LISTED]], %[[INLIST]], %[[HOLDS]] : i1
// CHECK-NEXT:   arith.andi %{{.*}}, %[[RUNS]]
// The last block of a slot re-zeroes the picked slot's arrival count.
// CHECK:        memref.store %{{.*}}, %{{.*}}[%[[RUNSLOT]]]
// CHECK:        gpu.return
eval.program @lowered attributes {A = 2 : i64, B = 4096 : i64, D = 4 : i64, S = 3 : i64} {
  eval.transpose_weight "mlp.0.weight.T" {cols = 8 : i64, rows = 8 : i64, table = "mlp.0.weight"}
  eval.buffer @kb_facts : i32 ["NF", "3"] init "kb.facts"
  eval.buffer @kb_ps_offsets : i32 ["RE1"] init "kb.psOffsets"
  eval.buffer @kb_po_facts : i32 ["NF"] init "kb.poFacts"
  eval.buffer @kb_po_offsets : i32 ["RE1"] init "kb.poOffsets"
  eval.buffer @kb_pred_offsets : i32 ["R1"] init "kb.predOffsets"
  eval.buffer @kb_rule_heads : i32 ["NR", "3"] init "kb.ruleHeads"
  eval.buffer @kb_rule_body_offsets : i32 ["NR1"] init "kb.ruleBodyOffsets"
  eval.buffer @kb_rule_body : i32 ["NRB", "3"] init "kb.ruleBody"
  eval.buffer @kb_rule_num_vars : i32 ["NR"] init "kb.ruleNumVars"
  eval.buffer @kb_rule_pred_offsets : i32 ["R1"] init "kb.rulePredOffsets"
  eval.buffer @kb_rule_ids_by_pred : i32 ["NR"] init "kb.ruleIdsByPred"
  eval.buffer @pool : i32 ["N", "3"] init "pool.triples"
  eval.buffer @next_cand : i32 ["1"]
  eval.buffer @out_status : i32 ["N"] init "out.status"
  eval.buffer @out_depth : i32 ["N"] init "out.depth"
  eval.buffer @out_logp : f32 ["N"] init "out.logp"
  eval.buffer @state : i32 ["B", "A", "3"]
  eval.buffer @slot_cand : i32 ["B"]
  eval.buffer @depth : i32 ["B"]
  eval.buffer @logp : f32 ["B"]
  eval.buffer @loop_flag : i32 ["1"]
  eval.buffer @derived : i32 ["B", "S", "A", "3"]
  eval.buffer @count : i32 ["B"]
  eval.buffer @action : i32 ["B"]
  eval.buffer @action_logp : f32 ["B"]
  eval.buffer @w_atom_pred_proj : f32 ["R2", "8"] init "weights:atom.pred_proj"
  eval.buffer @w_atom_arg0_const : f32 ["E", "8"] init "weights:atom.arg0_const"
  eval.buffer @w_atom_arg1_const : f32 ["E", "8"] init "weights:atom.arg1_const"
  eval.buffer @w_atom_arg0_var : f32 ["4", "8"] init "weights:atom.arg0_var"
  eval.buffer @w_atom_arg1_var : f32 ["4", "8"] init "weights:atom.arg1_var"
  eval.buffer @w_mlp_0_weight_T : f32 ["8", "8"] init "weights:mlp.0.weight.T"
  eval.buffer @w_mlp_0_bias : f32 ["8"] init "weights:mlp.0.bias"
  eval.buffer @w_mlp_0_ln_weight : f32 ["8"] init "weights:mlp.0.ln.weight"
  eval.buffer @w_mlp_0_ln_bias : f32 ["8"] init "weights:mlp.0.ln.bias"
  eval.encoder @enc(%arg0: !eval.state<2>) -> tensor<8xf32> {
    %3 = eval.folded_atom_embed %arg0 {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %4 = eval.relu %3 : tensor<2x8xf32>
    %5 = eval.sum_atoms %4 : tensor<2x8xf32> -> tensor<8xf32>
    %6 = eval.linear %5 {bias = "mlp.0.bias", weight = "mlp.0.weight"} : tensor<8xf32> -> tensor<8xf32>
    %7 = eval.layer_norm %6 {bias = "mlp.0.ln.bias", eps = 9.99999974E-6 : f32, weight = "mlp.0.ln.weight"} : tensor<8xf32>
    %8 = eval.relu %7 : tensor<8xf32>
    eval.return %8 : tensor<8xf32>
  }
  %0 = eval.knowledge_base {eval.buffers = [[@kb_facts, @kb_ps_offsets, @kb_po_facts, @kb_po_offsets, @kb_pred_offsets, @kb_rule_heads, @kb_rule_body_offsets, @kb_rule_body, @kb_rule_num_vars, @kb_rule_pred_offsets, @kb_rule_ids_by_pred]]} : !eval.kb
  %1 = eval.candidate_pool {eval.buffers = [[@pool, @next_cand, @out_status, @out_depth, @out_logp]]} : !eval.pool
  %slots, %active = eval.init_slots %1 {eval.buffers = [[@state, @slot_cand, @depth, @logp], [@loop_flag]]} : !eval.pool -> !eval.slots<4096x2>
  %2 = eval.engine %0, %slots, %1 {eval.buffers = [[@derived, @count]]} : !eval.slots<4096x2> -> !eval.derived<4096x3x2>
  eval.device_loop %active iter(%slots, %2 : !eval.slots<4096x2>, !eval.derived<4096x3x2>) attributes {eval.arg_buffers = [[@state, @slot_cand, @depth, @logp], [@derived, @count]]} {
  ^bb0(%arg0: !eval.slots<4096x2>, %arg1: !eval.derived<4096x3x2>):
    %action, %logp = eval.score_select @enc(%arg0, %arg1) {eval.buffers = [[@action], [@action_logp]], eval.weight_buffers = {atom.arg0_const = @w_atom_arg0_const, atom.arg0_var = @w_atom_arg0_var, atom.arg1_const = @w_atom_arg1_const, atom.arg1_var = @w_atom_arg1_var, atom.pred_proj = @w_atom_pred_proj, mlp.0.bias = @w_mlp_0_bias, mlp.0.ln.bias = @w_mlp_0_ln_bias, mlp.0.ln.weight = @w_mlp_0_ln_weight, mlp.0.weight = @w_mlp_0_weight_T}, scale = 2.500000e-01 : f32} : !eval.slots<4096x2>, !eval.derived<4096x3x2> -> tensor<4096xi32>, tensor<4096xf32>
    %result, %active_0 = eval.advance %arg0, %arg1, %action, %logp, %1 {eval.buffers = [[@state, @slot_cand, @depth, @logp], [@loop_flag]], max_depth = 4 : i64} : !eval.slots<4096x2>, !eval.derived<4096x3x2>, tensor<4096xi32>, tensor<4096xf32> -> !eval.slots<4096x2>
    %3 = eval.cond "engine" if %active_0 else(%arg1 : !eval.derived<4096x3x2>) -> !eval.derived<4096x3x2> attributes {eval.buffers = [[@derived, @count]]} {
      %4 = eval.engine %0, %result, %1 {eval.buffers = [[@derived, @count]]} : !eval.slots<4096x2> -> !eval.derived<4096x3x2>
      eval.cond_yield %4 : !eval.derived<4096x3x2>
    }
    eval.device_yield %active_0, %result, %3 : !eval.slots<4096x2>, !eval.derived<4096x3x2>
  }
}
