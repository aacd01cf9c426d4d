// eval-lower-to-gpu{advance-in-policy=true} (proofc compile --advance-in-policy; off by
// default): the step's advance and derive run in the step policy kernel.
// slot.cu, compiled with -DPROOFC_ADVANCE_IN_POLICY=1 and the advance-engine
// module's memo waits and hand-off, is linked into the policy's module; its
// proofc_policy_advance is called by the block that selects a slot's action,
// with the advance's words (kernel_abi.h's PROOFC_ABI_POLICY_ADVANCE_ARGS:
// the slot step's, then the counters, the kernel's children a part, the
// policy grid, B and the engine grid) at the end of the policy's
// arguments; the policy's rows move to dynamic shared memory
// (PolicyAdvanceLayout: the derive's scratch and those words over them once
// the block has selected), and proofc_step_end, one thread, takes the
// advance-engine's place in the loop (docs/gpu-kernels.md, "The fused
// step").
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=12288 advance-in-policy=true stop-before-nvvm=true})' \
// RUN: | FileCheck %s

// The policy list's two halves: a step's blocks read one (the engine
// grid's kEngineRead) while the advance lists the next step's in the other.
// CHECK:      eval.buffer @policy_list : i32 ["2", "B", "8", "2"]
// CHECK:      eval.cuda_module @advance "step.cu" [{{.*}}"-DPROOFC_MEMO_WAITS=2", "-DPROOFC_ENGINE_LIST=1", "-DPROOFC_TAIL_HANDOFF=264", "-DPROOFC_ENTRIES_LISTED", "-DPROOFC_ENTRY_proofc_list_slots", "-DPROOFC_ENTRY_proofc_step_end"]
// CHECK-NEXT: eval.cuda_module @policy_advance "slot.cu" ["-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ADVANCE_IN_POLICY=1", "-DPROOFC_MEMO_WAITS=2", "-DPROOFC_TAIL_HANDOFF=264", "-DPROOFC_ENGINE_THREADS=32", "-maxrregcount=96"] link_into @policy
// CHECK-NEXT: eval.cuda_module @slot "slot.cu" {{.*}} link_into @policy_tail
// CHECK:      eval.launch "init" {{.*}} "node:score_select", "buf:engine_grid", "buf:engine_list", "node:"] {role = "init"}
// CHECK-NEXT: eval.launch "engine" @step::@proofc_engine
// The first derive's slots listed for the first step (no step's policy
// runs the every-slot grid).
// CHECK-NEXT: eval.launch "list_slots" @advance::@proofc_list_slots grid ["1"] block 1024 args ["buf:loop_flag", "buf:count", "buf:slot_cand", "sym:B", "i32:15", "buf:policy_grid", "buf:policy_list", "node:score_select", "buf:engine_grid"] {role = "advance_engine"}
// CHECK-NEXT: eval.launch_loop "loop" flag @loop_flag {
// CHECK-NEXT:   eval.launch "score_select" @policy::@proofc_policy grid ["B", "8"] block 32 shared 5696 args [{{.*}}, "buf:score_select_logits", "buf:score_select_arrivals", "buf:policy_grid", "buf:policy_list", "buf:pool", "sym:N", "i32:20", {{.*}}, "buf:memo_table", "buf:memo_claims", "sym:MEMO", "buf:advance_engine_counters", "i32:15", "buf:policy_grid", "buf:policy_list", "sym:B", "buf:engine_grid", "buf:engine_list"] {role = "policy"}
// CHECK-NEXT:   eval.launch "step_end" @advance::@proofc_step_end grid ["1"] block 32 args ["buf:loop_flag", "buf:advance_engine_counters", "buf:loop_flag", "buf:loop_flag", "cond:loop", "cond:loop", "buf:policy_grid", "buf:policy_list", "node:score_select", "sym:B", "buf:engine_grid"] {role = "advance_engine"}
// CHECK-NEXT: }
// CHECK-NEXT: eval.launch "tail"
// CHECK:      gpu.module @policy [
// CHECK:        llvm.mlir.global external @proofc_policy_rows()
// CHECK:        llvm.func @proofc_policy_advance(i32, !llvm.ptr) -> i32 attributes {passthrough = ["convergent"]}
// CHECK:        gpu.func @proofc_policy(
// No static workgroup memory: the rows are the dynamic symbol's.
// CHECK-NOT:    workgroup(
// CHECK:        llvm.mlir.addressof @proofc_policy_rows
// enc(parent) after the rows (16 rows of 68 floats), the words after the
// derive's scratch (5,376 bytes: its 1,341 words, 16-aligned). The
// one-child (or waiting) slot's part 0 calls, then the selecting block:
// a barrier, thread 0's stores of the words, a barrier, the call.
// CHECK-NEXT:   llvm.ptrtoint
// CHECK-NEXT:   arith.constant 4352 : i64
// CHECK:        %[[ARGS:.*]] = arith.addi %{{.*}}, %c5376_i64 : i64
// CHECK:        gpu.barrier
// CHECK:        llvm.store {{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<3>
// CHECK:        gpu.barrier
// CHECK-NEXT:   llvm.inttoptr %[[ARGS]] : i64 to !llvm.ptr<3>
// CHECK:        llvm.call @proofc_policy_advance(
// CHECK:        gpu.barrier
// CHECK:        llvm.call @proofc_policy_advance(
// CHECK:      gpu.module @policy_tail [

// Off (the default): the advance-engine, no fused module.
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=12288 stop-before-nvvm=true})' \
// RUN: | FileCheck %s --check-prefix=OFF
// OFF-NOT: policy_advance
// OFF-NOT: proofc_step_end
// OFF:     eval.launch "advance_engine" @advance::@proofc_advance_engine
// OFF-NOT: proofc_policy_advance

// Where there is no fused advance-engine or no policy list: one error.
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=256 advance-in-policy=true stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=SMALL
// SMALL: error: 'eval.device_loop' op eval-lower-to-gpu: advance-in-policy needs the step schedule's fused advance-engine (not schedule=persistent)
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=512 schedule=step advance-in-policy=true stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=NOLIST
// NOLIST: error: 'eval.device_loop' op eval-lower-to-gpu: advance-in-policy needs the step policy grid's list (B >= 1024), B is 512
