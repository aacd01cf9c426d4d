// eval-specialize-shapes' errors: slots=N on a fused program (its types and
// buffers are already made for the program's B), slots out of range.
// RUN: not proofc-opt %s -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=7}))' 2>&1 \
// RUN: | FileCheck %s --check-prefix=FUSED
// FUSED: error: 'eval.program' op eval-specialize-shapes: slots=7 needs the spec-level program (an 'eval.proof_loop'; run it before eval-fuse-step)
// The program's own B is no change: nothing to do.
// RUN: proofc-opt %s -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=5}))' > /dev/null
// RUN: not proofc-opt %s -pass-pipeline='builtin.module(eval.program(eval-specialize-shapes{slots=-1}))' 2>&1 \
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
