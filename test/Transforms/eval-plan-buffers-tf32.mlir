// eval-plan-buffers{matmul=tf32x3}: every linear weight becomes TF32
// fragments for the tensor cores (eval.split_tf32_weight, 2 x in x out words)
// instead of its transpose; eval-lower-to-gpu then multiplies with
// mma.sync m16n8k8 (three per tile: 3xTF32) on 16-row warp tiles.
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=tf32x3}))' \
// RUN: | FileCheck %s
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=tf32x3}),eval-lower-to-gpu{schedule=step groups=4 min-blocks-per-sm=6})' \
// RUN: | FileCheck %s --check-prefix=GPU
// matmul=auto picks tf32x3 for a linear whose input is 8 wide (f16x3's
// m16n8k16 needs 16: eval-plan-buffers-f16.mlir).
// (auto plans the unaligned program below on the CUDA cores: no error.)
// RUN: proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers))' \
// RUN: | FileCheck %s --check-prefix=AUTO
// AUTO:        eval.split_tf32_weight "mlp.0.weight.tf32"

// CHECK-LABEL: eval.program @planned
// CHECK:       eval.split_tf32_weight "mlp.0.weight.tf32" {cols = 8 : i64, rows = 8 : i64, table = "mlp.0.weight"}
// CHECK-NOT:   eval.transpose_weight
// CHECK:       eval.buffer @w_mlp_0_weight_tf32 : f32 ["128"] init "weights:mlp.0.weight.tf32"
// CHECK:       eval.score_select
// CHECK-SAME:  mlp.0.weight = @w_mlp_0_weight_tf32

// d = 8: row groups of Q = 2 threads, 16 per warp, one row each (T = 1);
// the rows are padded to 12 floats. The embedding goes row by row into the
// block's rows (a block barrier hands them to the tiles' warps); the linear
// splits each A value into two TF32 parts and
// loads the weight fragments 16 bytes per lane; the LayerNorm's sums are
// over a quad (butterflies of 2 and 1). The block's "this block is the
// last" flag is row 0's first padding word (byte 4 x 8), not a third
// workgroup buffer.
// GPU-LABEL:   gpu.func @proofc_policy
// GPU-SAME:    workgroup(%[[ROWS:[a-zA-Z0-9_]+]] : memref<64x12xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{[a-zA-Z0-9_]+}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// GPU:         %[[ROWSI:[a-zA-Z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[ROWS]]
// GPU:         %[[ROWSA:[a-zA-Z0-9_]+]] = arith.index_cast %[[ROWSI]] : index to i64
// GPU:         scf.for
// GPU:         gpu.barrier
// GPU:         llvm.call_intrinsic "llvm.nvvm.f2tf32.rna"
// GPU:         llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// GPU-COUNT-3: nvvm.mma.sync
// GPU:         gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// GPU:         %[[PAD:[a-zA-Z0-9_]+]] = arith.constant 32 : i64
// GPU-NEXT:    %[[FLAGA:[a-zA-Z0-9_]+]] = arith.addi %[[ROWSA]], %[[PAD]] : i64
// GPU-NEXT:    %[[FLAG:[a-zA-Z0-9_]+]] = llvm.inttoptr %[[FLAGA]] : i64 to !llvm.ptr<3>
// GPU:         "atom.release.gpu.global.add.u32 $0, [$1], $2;"
// GPU:         llvm.store %{{.*}}, %[[FLAG]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// GPU:         gpu.barrier
// GPU-NEXT:    llvm.load %[[FLAG]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
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

// A linear whose width is not a multiple of 8 (the mma tile) cannot use the
// tensor cores.
eval.program @unaligned attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<12xf32> {
    %e = eval.folded_atom_embed %s {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    // expected-error @below {{matmul=tf32x3 needs linear layers whose widths are multiples of 8 (the mma tile), got 8 -> 12 (use matmul=fma)}}
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<12xf32>
    eval.return %l : tensor<12xf32>
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

// An unknown matmul is one error.
// RUN: not proofc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-plan-buffers{matmul=bf16}))' 2>&1 \
// RUN: | FileCheck %s --check-prefix=BAD
// BAD: error: 'eval.program' op eval-plan-buffers: unknown matmul 'bf16' (fma, tf32x3, f16x3, auto)
