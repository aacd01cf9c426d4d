// eval-lower-to-gpu{tail-handoff=T} (auto: 264 from B = 8192 up to 16384):
// the step schedule ends its loop at the first step that starts with at
// most T slots listed active (the fused advance-engine's module gets
// -DPROOFC_TAIL_HANDOFF=T beside its list, -DPROOFC_ENGINE_LIST=1), and
// the loop's policy is also built in its persistent form, in a gpu.module
// of its own (@policy_tail, slot.cu linked into it: the step policy's
// module links nothing and is what it is without the hand-off). Its launch
// follows the loop (the bundle's schedule.tail), on the loop's step memo: one block for each of B
// slots, block i running the i-th slot of the advance-engine's list (the
// words' half, then its entry; a block past the list's count runs
// nothing), the words' buffer its guard (the count). slot.cu's words end
// its arguments, as the persistent schedule's (docs/gpu-kernels.md, "The
// tail hand-off").
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=8192 stop-before-nvvm=true})' \
// RUN: | FileCheck %s

// CHECK:      eval.buffer @engine_grid : i32 ["2"]
// CHECK-NEXT: eval.buffer @engine_list : i32 ["2", "B"]
// CHECK:      eval.cuda_module @advance "step.cu" ["-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=32", "-DPROOFC_MEMO_WAITS=2", "-DPROOFC_ENGINE_LIST=1", "-DPROOFC_TAIL_HANDOFF=264", "-DPROOFC_ENTRIES_LISTED", "-DPROOFC_ENTRY_proofc_advance_engine"]
// CHECK-NEXT: eval.cuda_module @slot "slot.cu" ["-DPROOFC_A=6", "-DPROOFC_S=120", "-DPROOFC_ENGINE_THREADS=256", "-maxrregcount=128"] link_into @policy_tail
// CHECK:      eval.launch_loop "loop" flag @loop_flag {
// CHECK-NEXT:   eval.launch "score_select" @policy::@proofc_policy grid ["B", "8"] block 32
// CHECK-NEXT:   eval.launch "advance_engine" @advance::@proofc_advance_engine {{.*}} "buf:memo_table", "buf:memo_claims", "sym:MEMO", {{.*}}{role = "advance_engine"}
// CHECK-NEXT: }
// CHECK-NEXT: eval.launch "tail" @policy_tail::@proofc_policy_tail grid ["B"] block 256 shared 74792 args ["buf:engine_grid", "buf:state", "buf:derived", "buf:count", "buf:slot_cand", {{.*}}, "buf:action", "buf:action_logp", "buf:engine_grid", "buf:engine_list", "buf:pool", "sym:N", "i32:20", {{.*}}, "buf:memo_table", "buf:memo_claims", "sym:MEMO"] {role = "persistent"}
// CHECK-NEXT: }
// CHECK:      gpu.module @policy [
// CHECK-NOT:    proofc_slot_advance_engine
// CHECK:        gpu.func @proofc_policy(
// CHECK:      gpu.module @policy_tail [
// CHECK:        llvm.func @proofc_slot_advance_engine(i32, !llvm.ptr) -> i32
// CHECK:        gpu.func @proofc_policy_tail(%[[GUARD:[a-z0-9]+]]: memref<i32, {{.*}}>,
// The slot: the list's entry at the block's index, in the half the words
// name; run only inside the list and on a slot with a candidate.
// CHECK:        %[[BID:.*]] = gpu.block_id  x
// CHECK:        %[[LISTED:.*]] = memref.load %[[WORDS:.*]][%c0] : memref<2xi32
// CHECK:        %[[HALF:.*]] = memref.load %[[WORDS]][%c1] : memref<2xi32
// CHECK-NEXT:   %[[HALFIDX:.*]] = arith.index_cast %[[HALF]] : i32 to index
// CHECK-NEXT:   %[[BID32:.*]] = arith.index_cast %[[BID]] : index to i32
// CHECK-NEXT:   %[[INLIST:.*]] = arith.cmpi slt, %[[BID32]], %[[LISTED]] : i32
// CHECK:        %[[AT:.*]] = arith.select %[[INLIST]], %[[BID]], %{{.*}} : index
// CHECK:        %[[ENTRY:.*]] = memref.load %{{.*}}[%[[HALFIDX]], %[[AT]]] : memref<2x8192xi32
// CHECK-NEXT:   %[[SLOT:.*]] = arith.index_cast %[[ENTRY]] : i32 to index
// CHECK-NEXT:   %[[CAND:.*]] = memref.load %{{.*}}[%[[SLOT]]] : memref<8192xi32
// CHECK:        %[[HOLDS:.*]] = arith.cmpi sge, %[[CAND]], %{{.*}} : i32
// CHECK-NEXT:   %[[RUNS:.*]] = arith.andi %[[INLIST]], %[[HOLDS]] : i1
// CHECK-NEXT:   arith.andi %{{.*}}, %[[RUNS]] : i1

// Off (0), and none by auto below 8192, from 16384 or with the FMA layers:
// no tail, no second module, no option.
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=8192 tail-handoff=0 stop-before-nvvm=true})' \
// RUN: | FileCheck %s --check-prefix=OFF
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=16384 stop-before-nvvm=true})' \
// RUN: | FileCheck %s --check-prefix=OFF
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=4096 stop-before-nvvm=true})' \
// RUN: | FileCheck %s --check-prefix=OFF
// RUN: proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=8192 matmul=fma stop-before-nvvm=true})' \
// RUN: | FileCheck %s --check-prefix=OFF
// OFF-NOT: PROOFC_TAIL_HANDOFF
// OFF-NOT: eval.launch "tail"
// OFF-NOT: @policy_tail

// Asked for where there is no list to hand off (below 8192), or no step
// schedule: an error naming the option.
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=4096 tail-handoff=264 stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=NOLIST
// NOLIST: error: 'eval.device_loop' op eval-lower-to-gpu: tail-handoff=264 needs the advance-engine's list of the slots still active (B >= 8192; 0: no hand-off)
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=8192 schedule=persistent tail-handoff=264 stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=PERS
// PERS: error: eval-lower-to-gpu: tail-handoff applies to the step schedule's fused advance-engine kernel, which this program does not have (schedule=persistent)
// RUN: not proofc-opt %examples/v10.mlir --pass-pipeline='builtin.module(eval-gpu-pipeline{slots=8192 tail-handoff=-2 stop-before-nvvm=true})' 2>&1 \
// RUN: | FileCheck %s --check-prefix=NEG
// NEG: error: eval-lower-to-gpu: tail-handoff must be 0 or more (0: never; -1: auto), got -2
