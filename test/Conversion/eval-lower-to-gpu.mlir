// eval-lower-to-gpu: a planned program becomes its GPU plan as IR. The
// policy's eval.score_select becomes gpu.func @score_select (generated from
// the encoder: per-atom lookups, a linear through workgroup memory, layer
// norm by warp butterflies, the dot, then spec §4's selection in warp 0);
// init, engine and advance become launches of the CUDA C++ templates (one
// module: step.cu includes engine.cu); the loop becomes eval.launch_loop.
// By default the advance and the engine cond after it are ONE launch of
// proofc_advance_engine (two kernels per step, no IF node left); with
// fuse-advance-engine=false they stay apart, the cond an eval.launch_cond.
// The fused step's advance takes the steps its step memo knows (memo.cu:
// MEMO entries of 20 words for A = 2, each slot's claim); the unfused one
// has no memo. Both advances write the recorded actions (out.actions: N x
// ACTIONS, the runtime's symbol, D when a run records them, else 0).
// RUN: proofc-opt %s -split-input-file -verify-diagnostics -eval-lower-to-gpu \
// RUN: | FileCheck %s
// RUN: proofc-opt %s -split-input-file -verify-diagnostics -eval-lower-to-gpu=fuse-advance-engine=false \
// RUN: | FileCheck %s --check-prefix=UNFUSED

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:      eval.program @lowered
// The policy kernel's scratch: the logits rows a slot's blocks meet in and
// their arrival counts (zero-filled); the fused step's two counters and
// its memo; the step policy grid's words and list (kernel_abi.h), which
// init and the advance-engine take even where they do not resize it; the
// advance-engine grid's words and its list's two halves of B.
// CHECK:      eval.buffer @score_select_logits : f32 ["B", "S"]
// CHECK-NEXT: eval.buffer @score_select_arrivals : i32 ["B"]
// CHECK-NEXT: eval.buffer @advance_engine_counters : i32 ["2"]
// CHECK-NEXT: eval.buffer @out_actions : i32 ["N", "ACTIONS"] init "out.actions"
// CHECK-NEXT: eval.buffer @memo_table : i32 ["MEMO", "20"]
// CHECK-NEXT: eval.buffer @memo_claims : i32 ["B"]
// CHECK-NEXT: eval.buffer @policy_grid : i32 ["2"]
// CHECK-NEXT: eval.buffer @policy_list : i32 ["B", "1", "2"]
// CHECK-NEXT: eval.buffer @engine_grid : i32 ["2"]
// CHECK-NEXT: eval.buffer @engine_list : i32 ["2", "B"]
// CHECK-NEXT: eval.cuda_module @step "step.cu" ["-DPROOFC_A=2", "-DPROOFC_S=3", "-DPROOFC_ENGINE_THREADS=64", "-DPROOFC_ENTRIES_LISTED", "-DPROOFC_ENTRY_proofc_init", "-DPROOFC_ENTRY_proofc_engine"]
// CHECK-NEXT: eval.cuda_module @advance "step.cu" ["-DPROOFC_A=2", "-DPROOFC_S=3", "-DPROOFC_ENGINE_THREADS=64", "-DPROOFC_MEMO_WAITS=2", "-DPROOFC_ENTRIES_LISTED", "-DPROOFC_ENTRY_proofc_advance_engine"]
// CHECK-NOT:  eval.cuda_module
// CHECK-NOT:  eval.init_slots
// With the cond gone, the kernels' engine handle is the loop's. Init and
// the advance-engine get the policy grid's arguments: its parts (1 here:
// S = 3), its children a part (255: 4 warps x 2 row groups x 32 states,
// less the parent) and no node: below B = 1024 the grid is not resized
// (GpuHeuristics.h; compile-bundle.test has one that is). Then the
// advance-engine grid's: B (the advance-engine's), its words and list, and
// no node: below B = 8192 the advance-engine does not resize its own next
// launch (chooseEngineGridResize; compile-bundle.test has one that does).
// CHECK:      eval.launch "init" @step::@proofc_init grid ["1"] block 256 args ["buf:pool", "sym:N", "sym:B", "buf:state", "buf:slot_cand", "buf:depth", "buf:logp", "buf:next_cand", "buf:loop_flag", "buf:loop_flag", "cond:loop", "cond:loop", "i32:1", "buf:policy_grid", "buf:policy_list", "node:", "buf:engine_grid", "buf:engine_list", "node:"] {role = "init"}
// CHECK-NEXT: eval.launch "engine" @step::@proofc_engine grid ["B"] block 64 args ["buf:loop_flag", "buf:state", "buf:slot_cand", "buf:pool", "buf:kb_facts", "buf:kb_ps_offsets", "buf:kb_po_facts", "buf:kb_po_offsets", "buf:kb_pred_offsets", "buf:kb_rule_heads", "buf:kb_rule_body_offsets", "buf:kb_rule_body", "buf:kb_rule_num_vars", "buf:kb_rule_pred_offsets", "buf:kb_rule_ids_by_pred", "sym:E", "sym:R", "buf:derived", "buf:count"] {role = "engine"}
// CHECK-NEXT: eval.launch_loop "loop" flag @loop_flag {
// CHECK-NEXT:   eval.launch "score_select" @policy::@proofc_policy grid ["B", "1"] block 128 args ["buf:loop_flag", "buf:state", "buf:derived", "buf:count", "buf:slot_cand", "buf:w_atom_pred_proj", "buf:w_atom_arg0_const", "buf:w_atom_arg1_const", "buf:w_atom_arg0_var", "buf:w_atom_arg1_var", "buf:w_mlp_0_weight_T", "buf:w_mlp_0_bias", "buf:w_mlp_0_ln_weight", "buf:w_mlp_0_ln_bias", "sym:R", "f32:0.25", "buf:action", "buf:action_logp", "buf:score_select_logits", "buf:score_select_arrivals"] {role = "policy"}
// CHECK-NEXT:   eval.launch "advance_engine" @advance::@proofc_advance_engine grid ["B"] block 64 args ["buf:loop_flag", "buf:pool", "sym:N", "i32:4", "sym:R", "buf:action", "buf:action_logp", "buf:state", "buf:slot_cand", "buf:depth", "buf:logp", "buf:next_cand", "buf:out_status", "buf:out_depth", "buf:out_logp", "buf:out_actions", "sym:ACTIONS", "buf:kb_facts", "buf:kb_ps_offsets", "buf:kb_po_facts", "buf:kb_po_offsets", "buf:kb_pred_offsets", "buf:kb_rule_heads", "buf:kb_rule_body_offsets", "buf:kb_rule_body", "buf:kb_rule_num_vars", "buf:kb_rule_pred_offsets", "buf:kb_rule_ids_by_pred", "sym:E", "buf:derived", "buf:count", "buf:memo_table", "buf:memo_claims", "sym:MEMO", "buf:advance_engine_counters", "buf:loop_flag", "buf:loop_flag", "cond:loop", "cond:loop", "i32:255", "buf:policy_grid", "buf:policy_list", "node:", "sym:B", "buf:engine_grid", "buf:engine_list", "node:"] {role = "advance_engine"}
// CHECK-NEXT: }
// UNFUSED-LABEL: eval.program @lowered
// UNFUSED-NOT:   @advance_engine_counters
// UNFUSED-NOT:   @memo_table
// UNFUSED:       eval.cuda_module @step "step.cu" ["-DPROOFC_A=2", "-DPROOFC_S=3", "-DPROOFC_ENGINE_THREADS=64", "-DPROOFC_ENTRIES_LISTED", "-DPROOFC_ENTRY_proofc_init", "-DPROOFC_ENTRY_proofc_engine", "-DPROOFC_ENTRY_proofc_advance"]
// UNFUSED-NOT:   eval.cuda_module
// UNFUSED:       eval.launch "init" @step::@proofc_init {{.*}} "buf:loop_flag", "buf:loop_flag", "cond:engine", "cond:loop", "i32:1", "buf:policy_grid", "buf:policy_list", "node:", "buf:engine_grid", "buf:engine_list", "node:"] {role = "init"}
// UNFUSED:       eval.launch_loop "loop" flag @loop_flag {
// UNFUSED-NEXT:    eval.launch "score_select" @policy::@proofc_policy
// UNFUSED-NEXT:    eval.launch "advance" @step::@proofc_advance grid ["1"] block 256 args ["buf:loop_flag", "buf:pool", "sym:N", "sym:B", "i32:4", "sym:R", "buf:derived", "buf:count", "buf:action", "buf:action_logp", "buf:state", "buf:slot_cand", "buf:depth", "buf:logp", "buf:next_cand", "buf:out_status", "buf:out_depth", "buf:out_logp", "buf:out_actions", "sym:ACTIONS", "buf:loop_flag", "buf:loop_flag", "cond:engine", "cond:loop"] {role = "advance"}
// UNFUSED-NEXT:    eval.launch_cond "engine" flag @loop_flag {
// UNFUSED-NEXT:      eval.launch "engine_1" @step::@proofc_engine grid ["B"] block 64 args ["buf:loop_flag", {{.*}}] {role = "engine"}
// UNFUSED-NEXT:    }
// UNFUSED-NEXT:  }
// CHECK-NOT:  eval.device_loop
// CHECK:      gpu.module @policy [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86", link = ["{{.*}}libdevice.10.bc"]>] {
//
// Bare pointers in (0-d memrefs: the C signature); the logits rows and the
// arrival counts last (below B = 4096 the grid is the plan's, so the
// kernel takes no policy grid: eval-lower-to-gpu-policy-grid.mlir). Workgroup memory: the activation rows (4 warps x 16
// row groups x 4 states, width 8), enc(parent), the "last block" flag; 16-byte
// aligned (vector loads and stores); 6 blocks per SM cap the registers.
// CHECK-NEXT:   gpu.func @proofc_policy(%[[GUARD:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>, {{.*}}, %[[R:[a-zA-Z0-9_]+]]: i32, %[[SCALE:[a-zA-Z0-9_]+]]: f32, %{{.*}}: memref<i32, #gpu.address_space<global>>, %{{.*}}: memref<f32, #gpu.address_space<global>>, %{{.*}}: memref<f32, #gpu.address_space<global>>, %[[ARRIVALS:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>) workgroup(%{{.*}} : memref<256x8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[LAST:[a-zA-Z0-9_]+]] : memref<1xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 6 : i32} {
// Block b is part b / B of slot b % B.
// CHECK-NEXT:     %[[G:[a-zA-Z0-9_]+]] = memref.load %[[GUARD]][]
// CHECK-NEXT:     %[[BID:[a-zA-Z0-9_]+]] = gpu.block_id x
// CHECK-NEXT:     %[[NB:[a-zA-Z0-9_]+]] = arith.constant 5 : index
// CHECK-NEXT:     %[[SLOT:[a-zA-Z0-9_]+]] = arith.remui %[[BID]], %[[NB]] : index
// CHECK-NEXT:     %[[NB2:[a-zA-Z0-9_]+]] = arith.constant 5 : index
// CHECK-NEXT:     %[[PART:[a-zA-Z0-9_]+]] = arith.divui %[[BID]], %[[NB2]] : index
// A warp with rows in the list encodes them: the 3A words of the parent or
// of a child (8-byte loads from the selected row, first to leave the L1:
// a row is its tile's alone), then 16-byte table rows
// read under a predicate, no branch (a padding atom reads no predicate
// row, TRUE/FALSE and padding no argument rows: zeros); an atom's argument
// rows and the atom itself are scaled by 1 or 0 (TRUE/FALSE, padding)
// instead of selected, relu'd and summed by fma.
// CHECK:          scf.if %{{.*}} -> ({{(f32, ){15}f32}}) {
// CHECK:            arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-COUNT-3:    llvm.inline_asm "ld.global.L1::evict_first.v2.b32 {$0, $1}, [$2];", "=r,=r,l" %{{.*}} : (i64) -> !llvm.struct<(i32, i32)>
// CHECK-NOT:        scf.if
// CHECK:            %[[IS_ATOM:[a-zA-Z0-9_]+]] = arith.cmpi sge, %[[P:[a-zA-Z0-9_]+]], %{{.*}} : i32
// CHECK-NEXT:       %[[HAS_ARGS:[a-zA-Z0-9_]+]] = arith.cmpi ult, %[[P]], %{{.*}} : i32
// CHECK-NOT:        scf.if
// CHECK:            %[[ATOM_FLAG:[a-zA-Z0-9_]+]] = arith.extui %[[IS_ATOM]] : i1 to i32
// CHECK-NOT:        scf.if
// CHECK:            llvm.inline_asm "{ .reg .pred p; setp.ne.b32 p, $5, 0; {{.*}} @p ld.global.nc.v4.f32 {$0, $1, $2, $3}, [$4]; }", "=&f,=&f,=&f,=&f,l,r" %{{.*}}, %[[ATOM_FLAG]] : (i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-2:    arith.extui %[[HAS_ARGS]] : i1 to i32
// CHECK-NOT:        scf.if
// CHECK:            %[[PRE:[a-zA-Z0-9_]+]] = math.fma %{{.*}}, %[[ARGSCALE:[a-zA-Z0-9_]+]], %{{.*}} : f32
// CHECK-NEXT:       %[[SUM:[a-zA-Z0-9_]+]] = math.fma %{{.*}}, %[[ARGSCALE]], %[[PRE]] : f32
// CHECK-NEXT:       %[[RELU:[a-zA-Z0-9_]+]] = arith.maxnumf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT:       math.fma %[[RELU]], %{{.*}}, %{{.*}} : f32
// The linear: the rows through the warp's workgroup rows (warp barriers),
// then fma by vector loads of inputs and weight rows.
// CHECK:            llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:            nvvm.bar.warp.sync
// CHECK:            llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:            math.fma
// CHECK:            nvvm.bar.warp.sync
// Layer norm: row sums by butterfly, then sqrt.rn and a correctly rounded
// division.
// CHECK:            gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:            %[[ROOT:[a-zA-Z0-9_]+]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:       %[[ONE:[a-zA-Z0-9_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:       arith.divf %[[ONE]], %[[ROOT]] : f32
// enc(parent) through workgroup memory (one block barrier), each child's
// dot times the scale into its global logit.
// CHECK:          gpu.barrier
// CHECK:          %[[LOGIT:[a-zA-Z0-9_]+]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK:          llvm.store %[[LOGIT]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// Arrival: a barrier, then thread 0's count by a release add (no fence in
// every block); the last block of the slot fences (the acquire) and selects.
// Without the tensor cores the rows have no padding: the "last" flag is
// its own workgroup word.
// CHECK:          gpu.barrier
// CHECK-NOT:      nvvm.memory.barrier
// CHECK:          %[[LASTI:[a-zA-Z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[LAST]]
// CHECK:          %[[LASTA:[a-zA-Z0-9_]+]] = arith.index_cast %[[LASTI]] : index to i64
// CHECK:          %[[FLAG:[a-zA-Z0-9_]+]] = llvm.inttoptr %[[LASTA]] : i64 to !llvm.ptr<3>
// CHECK:          memref.extract_aligned_pointer_as_index %[[ARR:[a-zA-Z0-9_]+]] : memref<5xi32
// CHECK:          llvm.inline_asm has_side_effects "atom.release.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r"
// CHECK:          llvm.store %{{.*}}, %[[FLAG]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK:          gpu.barrier
// CHECK:          llvm.load %[[FLAG]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// Spec §4 in warp 0 over volatile (L1-bypassing) loads: max, threshold in
// f64, first index, log-softmax; then the slot's count is re-zeroed.
// CHECK:            nvvm.memory.barrier <gpu>
// CHECK:            llvm.load volatile %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:            arith.maxnumf
// CHECK:            arith.extf %{{.*}} : f32 to f64
// CHECK:            arith.minsi
// CHECK:            math.exp %{{.*}} : f64
// CHECK:            math.log %{{.*}} : f64
// CHECK:            memref.store %{{.*}}, %[[ARR]][%[[SLOT]]]
// CHECK:        gpu.return
eval.program @lowered attributes {A = 2 : i64, B = 5 : i64, D = 4 : i64, S = 3 : i64} {
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
  %slots, %active = eval.init_slots %1 {eval.buffers = [[@state, @slot_cand, @depth, @logp], [@loop_flag]]} : !eval.pool -> !eval.slots<5x2>
  %2 = eval.engine %0, %slots, %1 {eval.buffers = [[@derived, @count]]} : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %active iter(%slots, %2 : !eval.slots<5x2>, !eval.derived<5x3x2>) attributes {eval.arg_buffers = [[@state, @slot_cand, @depth, @logp], [@derived, @count]]} {
  ^bb0(%arg0: !eval.slots<5x2>, %arg1: !eval.derived<5x3x2>):
    %action, %logp = eval.score_select @enc(%arg0, %arg1) {eval.buffers = [[@action], [@action_logp]], eval.weight_buffers = {atom.arg0_const = @w_atom_arg0_const, atom.arg0_var = @w_atom_arg0_var, atom.arg1_const = @w_atom_arg1_const, atom.arg1_var = @w_atom_arg1_var, atom.pred_proj = @w_atom_pred_proj, mlp.0.bias = @w_mlp_0_bias, mlp.0.ln.bias = @w_mlp_0_ln_bias, mlp.0.ln.weight = @w_mlp_0_ln_weight, mlp.0.weight = @w_mlp_0_weight_T}, scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %result, %active_0 = eval.advance %arg0, %arg1, %action, %logp, %1 {eval.buffers = [[@state, @slot_cand, @depth, @logp], [@loop_flag]], max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %3 = eval.cond "engine" if %active_0 else(%arg1 : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> attributes {eval.buffers = [[@derived, @count]]} {
      %4 = eval.engine %0, %result, %1 {eval.buffers = [[@derived, @count]]} : !eval.slots<5x2> -> !eval.derived<5x3x2>
      eval.cond_yield %4 : !eval.derived<5x3x2>
    }
    eval.device_yield %active_0, %result, %3 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

// eval.copy: one launch of gpu.func @copy_words per component buffer.
// CHECK-LABEL: eval.program @copies
// CHECK:      eval.launch "copy_state_1" @policy::@copy_words grid ["120"] block 256 args ["buf:loop_flag", "buf:state", "buf:state_1", "sym:B", "sym:A", "i32:3", "i32:1"] {role = "copy"}
// CHECK-NEXT: eval.launch "copy_slot_cand_1" @policy::@copy_words grid ["120"] block 256 args ["buf:loop_flag", "buf:slot_cand", "buf:slot_cand_1", "sym:B", "i32:1", "i32:1", "i32:1"] {role = "copy"}
// CHECK-NEXT: eval.launch "copy_depth_1"
// CHECK-NEXT: eval.launch "copy_logp_1"
// CHECK-NEXT: eval.launch "advance" {{.*}} "buf:state_1", "buf:slot_cand_1", "buf:depth_1", "buf:logp_1",
// CHECK:      eval.launch "copy_state" @policy::@copy_words grid ["120"] block 256 args ["buf:loop_flag", "buf:state_1", "buf:state", "sym:B", "sym:A", "i32:3", "i32:1"] {role = "copy"}
// CHECK:      gpu.func @copy_words(%[[GUARD:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>, %[[SRC:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>, %[[DST:[a-zA-Z0-9_]+]]: memref<i32, #gpu.address_space<global>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel {
// CHECK:        scf.for
// CHECK-NEXT:     %[[V:[a-zA-Z0-9_]+]] = memref.load
// CHECK-NEXT:     memref.store %[[V]]
eval.program @copies attributes {A = 2 : i64, B = 5 : i64, D = 4 : i64, S = 3 : i64} {
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
  eval.buffer @state_1 : i32 ["B", "A", "3"]
  eval.buffer @slot_cand_1 : i32 ["B"]
  eval.buffer @depth_1 : i32 ["B"]
  eval.buffer @logp_1 : f32 ["B"]
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
  %slots, %active = eval.init_slots %1 {eval.buffers = [[@state, @slot_cand, @depth, @logp], [@loop_flag]]} : !eval.pool -> !eval.slots<5x2>
  %2 = eval.engine %0, %slots, %1 {eval.buffers = [[@derived, @count]]} : !eval.slots<5x2> -> !eval.derived<5x3x2>
  eval.device_loop %active iter(%slots, %2 : !eval.slots<5x2>, !eval.derived<5x3x2>) attributes {eval.arg_buffers = [[@state, @slot_cand, @depth, @logp], [@derived, @count]]} {
  ^bb0(%arg0: !eval.slots<5x2>, %arg1: !eval.derived<5x3x2>):
    %action, %logp = eval.score_select @enc(%arg0, %arg1) {eval.buffers = [[@action], [@action_logp]], eval.weight_buffers = {atom.arg0_const = @w_atom_arg0_const, atom.arg0_var = @w_atom_arg0_var, atom.arg1_const = @w_atom_arg1_const, atom.arg1_var = @w_atom_arg1_var, atom.pred_proj = @w_atom_pred_proj, mlp.0.bias = @w_mlp_0_bias, mlp.0.ln.bias = @w_mlp_0_ln_bias, mlp.0.ln.weight = @w_mlp_0_ln_weight, mlp.0.weight = @w_mlp_0_weight_T}, scale = 2.500000e-01 : f32} : !eval.slots<5x2>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %3 = eval.copy %arg0 {eval.buffers = [[@state_1, @slot_cand_1, @depth_1, @logp_1]]} : !eval.slots<5x2>
    %result, %active_0 = eval.advance %3, %arg1, %action, %logp, %1 {eval.buffers = [[@state_1, @slot_cand_1, @depth_1, @logp_1], [@loop_flag]], max_depth = 4 : i64} : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %4 = eval.cond "engine" if %active_0 else(%arg1 : !eval.derived<5x3x2>) -> !eval.derived<5x3x2> attributes {eval.buffers = [[@derived, @count]]} {
      %6 = eval.engine %0, %arg0, %1 {eval.buffers = [[@derived, @count]]} : !eval.slots<5x2> -> !eval.derived<5x3x2>
      eval.cond_yield %6 : !eval.derived<5x3x2>
    }
    %5 = eval.copy %result {eval.buffers = [[@state, @slot_cand, @depth, @logp]]} : !eval.slots<5x2>
    eval.device_yield %active_0, %5, %4 : !eval.slots<5x2>, !eval.derived<5x3x2>
  }
}

// -----

// The program must be planned first.
// expected-error @+1 {{'eval.program' op eval-lower-to-gpu needs a planned program (run eval-fuse-step and eval-plan-buffers first)}}
eval.program @unplanned attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
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
