// eval-specialize-shapes' errors: slots=N on a fused program (its types and
// buffers are already made for the program's B), slots out of range; and
// eval-fuse-step before it on a program whose types write B as `?`.
// RUN: not proofc-opt %s -split-input-file -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=7}))' 2>&1 \
// RUN: | FileCheck %s --check-prefix=FUSED
// FUSED: error: 'eval.program' op eval-specialize-shapes: slots=7 needs the spec-level program (an 'eval.proof_loop'; run it before eval-fuse-step)
// The program's own B is no change: nothing to do.
// RUN: proofc-opt %s -split-input-file -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=5}))' > /dev/null
// RUN: not proofc-opt %s -split-input-file -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=-1}))' 2>&1 \
// RUN: | FileCheck %s --check-prefix=RANGE
// RANGE: error: eval-specialize-shapes: slots must be in [1, 2147483647] (0: the program's B), got -1
eval.program @fused attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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

// The step fuses once B is written in: eval-fuse-step on `?` types is an
// error naming the pass to run first.
// RUN: not proofc-opt %s -split-input-file -pass-pipeline='builtin.module(eval.program(eval-fuse-step))' 2>&1 \
// RUN: | FileCheck %s --check-prefix=UNSPECIALIZED
// UNSPECIALIZED: error: 'eval.proof_loop' op cannot fuse the step: its types write B as '?' (run eval-specialize-shapes first)
// RUN: proofc-opt %s -split-input-file -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes,eval-fuse-step))' > /dev/null

// -----

eval.program @unspecialized attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
