// eval-plan-buffers{matmul=f16x3}: every linear weight becomes f16
// fragments for the tensor cores (eval.split_f16_weight, in x out words:
// two halves a word, a high and a low part) instead of its transpose;
// eval-lower-to-gpu then multiplies with mma.sync m16n8k16 (three per tile
// and k-step: 3xF16) on 16-row warp tiles. matmul=auto picks it when every
// linear's input is 16-aligned (eval-plan-buffers-tf32.mlir: 8 picks
// tf32x3).
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=f16x3}))' \
// RUN: | FileCheck %s
// RUN: proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers))' \
// RUN: | FileCheck %s --check-prefix=AUTO
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=f16x3}),eval-lower-to-gpu{schedule=step groups=4 min-blocks-per-sm=6})' \
// RUN: | FileCheck %s --check-prefix=GPU

// CHECK-LABEL: eval.program @planned
// CHECK:       eval.split_f16_weight "mlp.0.weight.f16" {cols = 16 : i64, rows = 16 : i64, table = "mlp.0.weight"}
// CHECK:       eval.split_f16_weight "mlp.1.weight.f16" {cols = 16 : i64, rows = 8 : i64, table = "mlp.1.weight"}
// CHECK-NOT:   eval.transpose_weight
// CHECK-NOT:   eval.split_tf32_weight
// CHECK:       eval.buffer @w_mlp_0_weight_f16 : f32 ["256"] init "weights:mlp.0.weight.f16"
// CHECK:       eval.buffer @w_mlp_1_weight_f16 : f32 ["128"] init "weights:mlp.1.weight.f16"
// CHECK:       eval.score_select
// CHECK-SAME:  mlp.0.weight = @w_mlp_0_weight_f16
// AUTO-LABEL:  eval.program @planned
// AUTO:        eval.split_f16_weight "mlp.0.weight.f16"
// AUTO-LABEL:  eval.program @unaligned
// AUTO:        eval.split_tf32_weight "mlp.0.weight.tf32"

// Each k-step: the lane's 8 activations loaded from its rows (columns
// 16ks + t + {0, 4} of rows g and g + 8, then + 8), each split into a half
// and the half of its remainder, paired into registers; one 16-byte load of
// the weight fragments per n-tile, its words two halves each; three
// m16n8k16 MMAs per n-tile, the small terms first.
// GPU-LABEL:   gpu.func @proofc_policy
// GPU:         scf.for
// GPU-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// GPU:         %[[H:[0-9]+]] = arith.truncf %{{.*}} : f32 to f16
// GPU-NEXT:    %[[HF:[0-9]+]] = arith.extf %[[H]] : f16 to f32
// GPU-NEXT:    %[[R:[0-9]+]] = arith.subf %{{.*}}, %[[HF]] : f32
// GPU-NEXT:    arith.truncf %[[R]] : f32 to f16
// GPU:         llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// GPU:         llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// GPU-COUNT-3: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
eval.program @planned attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x16xf32>
    %r = eval.relu %e : tensor<2x16xf32>
    %h = eval.sum_atoms %r : tensor<2x16xf32> -> tensor<16xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<16xf32> -> tensor<16xf32>
    %n = eval.layer_norm %l {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<16xf32>
    %o = eval.relu %n : tensor<16xf32>
    %l2 = eval.linear %o {weight = "mlp.1.weight", bias = "mlp.1.bias"} : tensor<16xf32> -> tensor<8xf32>
    eval.return %l2 : tensor<8xf32>
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

// A linear whose input is 8 wide (not m16n8k16's k) cannot use f16x3.
eval.program @unaligned attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %r = eval.relu %e : tensor<2x8xf32>
    %h = eval.sum_atoms %r : tensor<2x8xf32> -> tensor<8xf32>
    // expected-error @below {{matmul=f16x3 needs linear layers whose input width is a multiple of 16 and output width a multiple of 8 (the mma tile), got 8 -> 16 (use matmul=tf32x3 or fma)}}
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<16xf32>
    %n = eval.layer_norm %l {weight = "mlp.0.ln.weight", bias = "mlp.0.ln.bias", eps = 1.0e-05 : f32} : tensor<16xf32>
    %o = eval.relu %n : tensor<16xf32>
    %l2 = eval.linear %o {weight = "mlp.1.weight", bias = "mlp.1.bias"} : tensor<16xf32> -> tensor<8xf32>
    eval.return %l2 : tensor<8xf32>
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
