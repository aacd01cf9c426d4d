// eval-plan-buffers{atom-layer}: with the tensor cores (matmul=tf32x3), an
// encoder whose first vector layer is a square linear right after
// eval.sum_atoms gets eval.fold_atom_layer, a table of W · atom(p, x, y)
// made when the weights load (its buffer has the run-time extent AL), and
// the policy kernel takes it with N ("sym:AN", 0 when the run's table is
// over its budget) before R. The kernel branches on N once for the
// embedding (one table row an atom, or the atoms' three rows) and once for
// the layers (the rows plus the first linear's bias, or the linear).
// atom-layer=false, matmul=fma and other encoders get no table and the
// kernel's arguments of before.
// RUN: proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=tf32x3}))' \
// RUN: | FileCheck %s
// RUN: proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=tf32x3}),eval-lower-to-gpu{schedule=step groups=4 min-blocks-per-sm=6})' \
// RUN: | FileCheck %s --check-prefix=GPU
// RUN: proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=tf32x3 atom-layer=false}),eval-lower-to-gpu{schedule=step groups=4 min-blocks-per-sm=6})' \
// RUN: | FileCheck %s --check-prefix=OFF
// RUN: proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=fma}),eval-lower-to-gpu{schedule=step groups=4 min-blocks-per-sm=6})' \
// RUN: | FileCheck %s --check-prefix=OFF

// OFF-NOT: eval.fold_atom_layer
// OFF-NOT: sym:AN

// CHECK-LABEL: eval.program @folded
// CHECK:       eval.fold_atom_layer "mlp.0.weight.atom_layer" {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj", relu, weight = "mlp.0.weight", width = 8 : i64}
// CHECK:       eval.buffer @w_mlp_0_weight_atom_layer : f32 ["AL", "8"] init "weights:mlp.0.weight.atom_layer"
// CHECK:       eval.score_select
// CHECK-SAME:  mlp.0.weight.atom_layer = @w_mlp_0_weight_atom_layer
// GPU-LABEL:   eval.program @folded
// GPU:         eval.launch "score_select" @policy::@proofc_policy
// GPU-SAME:    "buf:w_mlp_1_bias", "buf:w_mlp_0_weight_atom_layer", "sym:AN", "sym:R", "f32:0.25"
// The kernel: the table and N (i32) before R; N != 0 picks the folded
// rows (no mma in that branch of the layers: the first linear is the rows
// plus its bias, the second is the only product).
// GPU:         gpu.func @proofc_policy({{.*}}: memref<f32, #gpu.address_space<global>>, %[[N:arg[0-9]+]]: i32, %{{arg[0-9]+}}: i32, %{{arg[0-9]+}}: f32
// GPU:         %[[E:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : i32
// GPU-NEXT:    scf.if %[[E]] {
// GPU:         } else {
// GPU:         %[[L:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : i32
// GPU-NEXT:    scf.if %[[L]] -> (f32
// GPU-COUNT-3: nvvm.mma.sync
// GPU:         } else {
// GPU-COUNT-6: nvvm.mma.sync
eval.program @folded attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %r = eval.relu %e : tensor<2x8xf32>
    %h = eval.sum_atoms %r : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    %n = eval.layer_norm %l {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<8xf32>
    %o = eval.relu %n : tensor<8xf32>
    %l1 = eval.linear %o {weight = "mlp.1.weight", bias = "mlp.1.bias"} : tensor<8xf32> -> tensor<8xf32>
    eval.return %l1 : tensor<8xf32>
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

// Atoms without relu: the table is made without it.
// CHECK-LABEL: eval.program @linear_atoms
// CHECK:       eval.fold_atom_layer "mlp.0.weight.atom_layer" {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj", weight = "mlp.0.weight", width = 8 : i64}
// GPU-LABEL:   eval.program @linear_atoms
// GPU:         "sym:AN", "sym:R"
eval.program @linear_atoms attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    eval.return %l : tensor<8xf32>
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

// A relu on the sum before the linear: W · relu(Σ atom) is not Σ W · atom,
// no table.
// CHECK-LABEL: eval.program @relu_first
// CHECK-NOT:   eval.fold_atom_layer
// CHECK:       eval.score_select
// GPU-LABEL:   eval.program @relu_first
// GPU-NOT:     sym:AN
// GPU:         gpu.func @proofc_policy
eval.program @relu_first attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    %r = eval.relu %h : tensor<8xf32>
    %l = eval.linear %r {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    eval.return %l : tensor<8xf32>
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

// A first linear that changes the width (8 -> 16): no table (the kernel's
// folded rows are the atoms' width).
// CHECK-LABEL: eval.program @wider
// CHECK-NOT:   eval.fold_atom_layer
// CHECK:       eval.score_select
// GPU-LABEL:   eval.program @wider
// GPU-NOT:     sym:AN
// GPU:         gpu.func @proofc_policy
eval.program @wider attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<16xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<16xf32>
    eval.return %l : tensor<16xf32>
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
