// Every op of EvalLoweringOps.td round-trips (docs/lowering.md).
// RUN: proofc-opt %s | proofc-opt | FileCheck %s
// RUN: proofc-opt %s -mlir-print-op-generic | proofc-opt | FileCheck %s

// The value-level forms: folding, the fused step, the cond, the plan.
// CHECK-LABEL: eval.program @values
// CHECK:      eval.fold_columns "atom.pred_proj" {bias = "atom.bias", col_begin = 0 : i64, cols = 8 : i64, rows = "R2", table = "pred_emb", weight = "atom.weight", width = 8 : i64}
// CHECK-NEXT: eval.transpose_weight "mlp.0.weight.T" {cols = 8 : i64, rows = 8 : i64, table = "mlp.0.weight"}
// CHECK-NEXT: eval.fold_atom_layer "mlp.0.weight.atom_layer" {arg0_const = "c0", arg0_var = "v0", arg1_const = "c1", arg1_var = "v1", pred_proj = "atom.pred_proj", relu, weight = "mlp.0.weight", width = 8 : i64}
// CHECK-NEXT: eval.buffer @state : i32 ["B", "A", "3"]
// CHECK-NEXT: eval.buffer @w : f32 ["R2", "8"] init "weights:atom.pred_proj"
// CHECK:      eval.folded_atom_embed %{{.*}} {arg0_const = "c0", arg0_var = "v0", arg1_const = "c1", arg1_var = "v1", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
// CHECK:      %[[S0:[a-z0-9_]+]], %[[F0:[a-z0-9_]+]] = eval.init_slots %{{.*}} : !eval.pool -> !eval.slots<5x2>
// CHECK-NEXT: %[[D0:[0-9]+]] = eval.engine %{{.*}}, %[[S0]], %{{.*}} : !eval.slots<5x2> -> !eval.derived<5x3x2>
// CHECK-NEXT: eval.device_loop %[[F0]] iter(%[[S0]], %[[D0]] : !eval.slots<5x2>, !eval.derived<5x3x2>) attributes {tag} {
// CHECK-NEXT: ^bb0(%[[S:[a-z0-9_]+]]: !eval.slots<5x2>, %[[D:[a-z0-9_]+]]: !eval.derived<5x3x2>):
// CHECK-NEXT:   %[[A:[a-z0-9_]+]], %[[L:[a-z0-9_]+]] = eval.score_select @enc(%[[S]], %[[D]]) {scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
// CHECK-NEXT:   %[[C:[0-9]+]] = eval.copy %[[S]] : !eval.slots<5x2>
// CHECK-NEXT:   %[[N:[a-z0-9_]+]], %[[F:[a-z0-9_]+]] = eval.advance %[[C]], %[[D]], %[[A]], %[[L]], %{{.*}} {max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
// CHECK-NEXT:   %[[D2:[0-9]+]] = eval.cond "engine" if %[[F]] else(%[[D]] : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> {
// CHECK-NEXT:     %[[E:[0-9]+]] = eval.engine %{{.*}}, %[[N]], %{{.*}}
// CHECK-NEXT:     eval.cond_yield %[[E]] : !eval.derived<5x3x2>
// CHECK-NEXT:   }
// CHECK-NEXT:   eval.device_yield %[[F]], %[[N]], %[[D2]] : !eval.slots<5x2>, !eval.derived<5x3x2>
eval.program @values attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.fold_columns "atom.pred_proj" {table = "pred_emb", weight = "atom.weight", bias = "atom.bias", col_begin = 0 : i64, cols = 8 : i64, width = 8 : i64, rows = "R2"}
  eval.transpose_weight "mlp.0.weight.T" {table = "mlp.0.weight", rows = 8 : i64, cols = 8 : i64}
  eval.fold_atom_layer "mlp.0.weight.atom_layer" {pred_proj = "atom.pred_proj", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1", weight = "mlp.0.weight", relu, width = 8 : i64}
  eval.buffer @state : i32 ["B", "A", "3"]
  eval.buffer @w : f32 ["R2", "8"] init "weights:atom.pred_proj"
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {pred_proj = "atom.pred_proj", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  %s0, %f0 = eval.init_slots %pool : !eval.pool -> !eval.slots<5x2>
  %d0 = eval.engine %kb, %s0, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %f0 iter(%s0, %d0 : !eval.slots<5x2>, !eval.derived<5x3x2>) attributes {tag} {
  ^bb0(%slots: !eval.slots<5x2>, %d: !eval.derived<5x3x2>):
    %act, %lp = eval.score_select @enc(%slots, %d) {scale = 0.25 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %c = eval.copy %slots : !eval.slots<5x2>
    %next, %active = eval.advance %c, %d, %act, %lp, %pool {max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %d2 = eval.cond "engine" if %active else(%d : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> {
      %n = eval.engine %kb, %next, %pool : !eval.slots<5x2> -> !eval.derived<5x3x2>
      eval.cond_yield %n : !eval.derived<5x3x2>
    }
    eval.device_yield %active, %next, %d2 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// The launch form: the GPU plan as IR.
// CHECK-LABEL: eval.program @launches
// CHECK:      eval.buffer @flag : i32 ["1"]
// CHECK-NEXT: eval.buffer @out : f32 ["N"] init "out.logp"
// CHECK-NEXT: eval.cuda_module @step "step.cu" ["-DPROOFC_A=2", "-DPROOFC_S=3"]
// CHECK:      eval.launch "init" @step::@proofc_init grid ["1"] block 256 args ["buf:flag", "sym:N", "i32:-3", "f32:0.5", "cond:loop"] {role = "init"}
// CHECK-NEXT: eval.launch_loop "loop" flag @flag {
// CHECK-NEXT:   eval.launch "k" @policy::@score_select grid ["B", "2"] block 64 shared 16 args ["buf:out"] {role = "policy"}
// CHECK-NEXT:   eval.launch_cond "engine" flag @flag {
// CHECK-NEXT:     eval.launch "again" @step::@proofc_advance grid ["1"] block 32 args ["cond:engine"] {role = "advance"}
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      gpu.module @policy
module attributes {gpu.container_module} {
  eval.program @launches attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
    eval.buffer @flag : i32 ["1"]
    eval.buffer @out : f32 ["N"] init "out.logp"
    eval.cuda_module @step "step.cu" ["-DPROOFC_A=2", "-DPROOFC_S=3"]
    eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
      %e = eval.folded_atom_embed %s {pred_proj = "p", arg0_const = "c0", arg1_const = "c1", arg0_var = "v0", arg1_var = "v1"} : !eval.state<2> -> tensor<2x8xf32>
      %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
      eval.return %h : tensor<8xf32>
    }
    eval.launch "init" @step::@proofc_init grid ["1"] block 256 args ["buf:flag", "sym:N", "i32:-3", "f32:0.5", "cond:loop"] {role = "init"}
    eval.launch_loop "loop" flag @flag {
      eval.launch "k" @policy::@score_select grid ["B", "2"] block 64 shared 16 args ["buf:out"] {role = "policy"}
      eval.launch_cond "engine" flag @flag {
        eval.launch "again" @step::@proofc_advance grid ["1"] block 32 args ["cond:engine"] {role = "advance"}
      }
    }
  }
  gpu.module @policy {
  }
}
