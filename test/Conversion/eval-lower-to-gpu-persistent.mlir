// eval-lower-to-gpu{schedule=persistent}: the loop's policy and fused
// advance-engine launches become ONE launch of the persistent policy kernel
// (one block per slot looping score -> advance -> derive until the pool is
// empty), then proofc_finish, which ends the loop. The kernel calls slot.cu's
// proofc_slot_advance_engine (declared here, convergent: every thread of the
// block calls it), passing the slot and a pointer to its arguments, stored
// once in the kernel's dynamic shared memory (`extern __shared__`
// proofc_policy_rows: the derive's DeriveScratch, whose kept states and
// state the encoding reads there, copied in from global memory once before
// the loop; then the rows, enc(parent), logits, arguments: 38976 + 128 x 68
// x 4 + 256 + 480 + 33 x 8 = 74792 bytes). slot.cu is an
// eval.cuda_module linked into the gpu.module, its derive one item per thread
// of the policy's block, capped at the policy's registers. The step memo
// (memo.cu) is two zero-filled buffers: MEMO entries of 44 words (A = 6) and
// each slot's claimed entry; MEMO is a run-time symbol.
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{matmul=tf32x3 groups=0 min-blocks-per-sm=2 schedule=persistent stop-before-nvvm=true})' \
// RUN: | FileCheck %s

// No logits rows or arrival counts: a block is its slot's only one.
// CHECK-NOT:  @score_select_logits
// CHECK:      eval.buffer @out_actions : i32 ["N", "ACTIONS"] init "out.actions"
// CHECK-NEXT: eval.buffer @memo_table : i32 ["MEMO", "44"]
// CHECK-NEXT: eval.buffer @memo_claims : i32 ["B"]
// CHECK:      eval.cuda_module @step "step.cu" ["-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=64", "-DPROOFC_ENTRIES_LISTED", "-DPROOFC_ENTRY_proofc_init", "-DPROOFC_ENTRY_proofc_engine", "-DPROOFC_ENTRY_proofc_finish"]
// CHECK-NEXT: eval.cuda_module @slot "slot.cu" ["-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=256", "-maxrregcount=128"] link_into @policy
// CHECK:      eval.launch "init" @step::@proofc_init
// CHECK-NEXT: eval.launch "engine" @step::@proofc_engine
// CHECK-NEXT: eval.launch_loop "loop" flag @loop_flag {
// CHECK-NEXT:   eval.launch "persistent" @policy::@proofc_policy grid ["B"] block 256 shared 74792 args ["buf:loop_flag", "buf:state", "buf:derived", "buf:count", "buf:slot_cand", {{.*}}, "buf:action", "buf:action_logp", "buf:pool", "sym:N", "i32:20", "sym:R", "buf:action", "buf:action_logp", "buf:state", "buf:slot_cand", "buf:depth", "buf:logp", "buf:next_cand", "buf:out_status", "buf:out_depth", "buf:out_logp", "buf:out_actions", "sym:ACTIONS", "buf:kb_facts", "buf:kb_ps_offsets", "buf:kb_po_facts", "buf:kb_po_offsets", "buf:kb_pred_offsets", "buf:kb_rule_heads", "buf:kb_rule_body_offsets", "buf:kb_rule_body", "buf:kb_rule_num_vars", "buf:kb_rule_pred_offsets", "buf:kb_rule_ids_by_pred", "sym:E", "buf:derived", "buf:count", "buf:memo_table", "buf:memo_claims", "sym:MEMO"] {role = "persistent"}
// CHECK-NEXT:   eval.launch "finish" @step::@proofc_finish grid ["1"] block 32 args ["buf:loop_flag", "cond:loop"] {role = "finish"}
// CHECK-NEXT: }
// CHECK-NOT:  proofc_advance_engine
// CHECK:      gpu.module @policy
// CHECK-DAG:  llvm.mlir.global external @proofc_policy_rows() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG:  llvm.func @proofc_slot_advance_engine(i32, !llvm.ptr) -> i32 attributes {passthrough = ["convergent"]}
// CHECK:      gpu.func @proofc_policy(
// CHECK:        llvm.mlir.addressof @proofc_policy_rows : !llvm.ptr<3>
// CHECK:        scf.for %{{.+}} = %thread_id_x to %c2178 step %c256
// CHECK:          llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK:          llvm.store %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK:        gpu.barrier
// CHECK:        scf.while
// CHECK:          llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK:          gpu.barrier
// CHECK:          %[[ACTIVE:.+]] = llvm.call @proofc_slot_advance_engine(%{{.+}}, %{{.+}}) : (i32, !llvm.ptr) -> i32
// CHECK:          scf.condition

// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{schedule=bogus stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=BOGUS
// BOGUS: error: 'eval.program' op eval-lower-to-gpu: unknown schedule 'bogus' (step, persistent or auto)

// groups=0 (fit a slot in one block) is the persistent kernel's only.
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{groups=0 schedule=step stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=FIT
// FIT: error: eval-lower-to-gpu: groups and states-per-thread must be positive (groups 0: fit a slot, with schedule=persistent; -1: auto), got 0 and 4

// engine-max-registers is 0 (no cap), a register count up to 255, or -1
// (auto); the persistent schedule has no advance-engine kernel to cap.
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=4096 engine-max-registers=-2 stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=REGS
// REGS: error: eval-lower-to-gpu: engine-max-registers must be in [0, 255] (0: no cap; -1: auto), got -2
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{schedule=persistent engine-max-registers=96 stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=REGSPERS
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=4096 memo-max-waits=9 stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=WAITS
// WAITS: error: eval-lower-to-gpu: memo-max-waits must be in [0, 8] (0: never; -1: auto), got 9
// REGSPERS: error: eval-lower-to-gpu: engine-max-registers applies to the step schedule's fused advance-engine kernel, which this program does not have (schedule=persistent)
