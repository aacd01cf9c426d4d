// eval-fold-atom-embedding: the atom embedding's linear becomes five tables
// projected when the weights load (eval.fold_columns) and a sum of lookups
// (eval.folded_atom_embed).
// RUN: proofc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(eval.program(eval-fold-atom-embedding))' \
// RUN: | FileCheck %s

// Column blocks [0,e), [e,2e), [2e,3e) of atom.weight; the bias goes into the
// predicate table; the variable tables have 2A rows.
// CHECK-LABEL: eval.program @v10_like
// CHECK:      eval.fold_columns "atom.pred_proj" {bias = "atom.bias", col_begin = 0 : i64, cols = 8 : i64, rows = "R2", table = "pred_emb", weight = "atom.weight", width = 8 : i64}
// CHECK-NEXT: eval.fold_columns "atom.arg0_const" {bias = "", col_begin = 8 : i64, cols = 8 : i64, rows = "E", table = "const_emb", weight = "atom.weight", width = 8 : i64}
// CHECK-NEXT: eval.fold_columns "atom.arg1_const" {bias = "", col_begin = 16 : i64, cols = 8 : i64, rows = "E", table = "const_emb", weight = "atom.weight", width = 8 : i64}
// CHECK-NEXT: eval.fold_columns "atom.arg0_var" {bias = "", col_begin = 8 : i64, cols = 8 : i64, rows = "4", table = "var_emb", weight = "atom.weight", width = 8 : i64}
// CHECK-NEXT: eval.fold_columns "atom.arg1_var" {bias = "", col_begin = 16 : i64, cols = 8 : i64, rows = "4", table = "var_emb", weight = "atom.weight", width = 8 : i64}
// CHECK:      eval.encoder @enc(%[[S:[a-zA-Z0-9_]+]]: !eval.state<2>)
// CHECK-NEXT:   %[[E:[a-zA-Z0-9_]+]] = eval.folded_atom_embed %[[S]] {arg0_const = "atom.arg0_const", arg0_var = "atom.arg0_var", arg1_const = "atom.arg1_const", arg1_var = "atom.arg1_var", pred_proj = "atom.pred_proj"} : !eval.state<2> -> tensor<2x8xf32>
// CHECK-NEXT:   %[[R:[a-zA-Z0-9_]+]] = eval.relu %[[E]] : tensor<2x8xf32>
// CHECK-NEXT:   eval.sum_atoms %[[R]]
// CHECK-NOT:  eval.atom_embed
// CHECK:      eval.proof_loop
eval.program @v10_like attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "pred_emb", consts = "const_emb", vars = "var_emb", weight = "atom.weight", bias = "atom.bias"} : !eval.state<2> -> tensor<2x8xf32>
    %r = eval.relu %e : tensor<2x8xf32>
    %h = eval.sum_atoms %r : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "mlp.0.weight", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    eval.return %l : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<5x2>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<5x2> -> !eval.derived<5x3x2>
    %pe = eval.encode @enc(%slots) : !eval.slots<5x2> -> tensor<5x8xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// embed_dim (e = 4) differs from the width (8): the blocks are 4 columns
// wide. A weight not named *.weight gives its full name as the prefix.
// Two encoders with the same atom weights share one set of tables.
// CHECK-LABEL: eval.program @narrow_shared
// CHECK:      eval.fold_columns "proj.pred_proj" {bias = "b", col_begin = 0 : i64, cols = 4 : i64, rows = "R2", table = "p", weight = "proj", width = 8 : i64}
// CHECK-NEXT: eval.fold_columns "proj.arg0_const" {bias = "", col_begin = 4 : i64, cols = 4 : i64
// CHECK-NEXT: eval.fold_columns "proj.arg1_const" {bias = "", col_begin = 8 : i64, cols = 4 : i64
// CHECK-NEXT: eval.fold_columns "proj.arg0_var" {bias = "", col_begin = 4 : i64, cols = 4 : i64, rows = "4"
// CHECK-NEXT: eval.fold_columns "proj.arg1_var" {bias = "", col_begin = 8 : i64, cols = 4 : i64, rows = "4"
// CHECK-NOT:  eval.fold_columns
// CHECK:      eval.encoder @enc
// CHECK-NEXT:   eval.folded_atom_embed {{.*}}pred_proj = "proj.pred_proj"
// CHECK:      eval.encoder @other
// CHECK-NEXT:   eval.folded_atom_embed {{.*}}pred_proj = "proj.pred_proj"
eval.program @narrow_shared attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "proj", bias = "b", embed_dim = 4 : i64} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  eval.encoder @other(%s: !eval.state<2>) -> tensor<8xf32> {
    %e = eval.atom_embed %s {preds = "p", consts = "c", vars = "v", weight = "proj", bias = "b", embed_dim = 4 : i64} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    eval.return %h : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<5x2>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<5x2> -> !eval.derived<5x3x2>
    %pe = eval.encode @enc(%slots) : !eval.slots<5x2> -> tensor<5x8xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}

// -----

// A folded table may not shadow a weight the program reads.
eval.program @shadow attributes {A = 2 : i64, S = 3 : i64, D = 4 : i64, B = 5 : i64} {
  eval.encoder @enc(%s: !eval.state<2>) -> tensor<8xf32> {
    // expected-error @+1 {{'eval.atom_embed' op cannot fold: the folded table 'atom.pred_proj' would shadow a weight the program reads}}
    %e = eval.atom_embed %s {preds = "pred_emb", consts = "const_emb", vars = "var_emb", weight = "atom.weight", bias = "atom.bias"} : !eval.state<2> -> tensor<2x8xf32>
    %h = eval.sum_atoms %e : tensor<2x8xf32> -> tensor<8xf32>
    %l = eval.linear %h {weight = "atom.pred_proj", bias = "mlp.0.bias"} : tensor<8xf32> -> tensor<8xf32>
    eval.return %l : tensor<8xf32>
  }
  %kb = eval.knowledge_base : !eval.kb
  %pool = eval.candidate_pool : !eval.pool
  eval.proof_loop %kb, %pool : !eval.kb, !eval.pool {
  ^bb0(%slots: !eval.slots<5x2>):
    %d = eval.derive %kb, %slots : !eval.kb, !eval.slots<5x2> -> !eval.derived<5x3x2>
    %pe = eval.encode @enc(%slots) : !eval.slots<5x2> -> tensor<5x8xf32>
    %ce = eval.encode @enc(%d) : !eval.derived<5x3x2> -> tensor<5x3x8xf32>
    %logits = eval.dot_score %pe, %ce {scale = 0.25 : f32} : tensor<5x8xf32>, tensor<5x3x8xf32> -> tensor<5x3xf32>
    %act, %lp = eval.select %logits, %d : tensor<5x3xf32>, !eval.derived<5x3x2> -> tensor<5xi32>, tensor<5xf32>
    %next = eval.transition %slots, %d, %act, %lp : !eval.slots<5x2>, !eval.derived<5x3x2>, tensor<5xi32>, tensor<5xf32> -> !eval.slots<5x2>
    %done = eval.terminal_check %next {max_depth = 4 : i64} : !eval.slots<5x2>
    %refill = eval.recycle %done, %pool : !eval.slots<5x2>, !eval.pool -> !eval.slots<5x2>
    eval.yield %refill : !eval.slots<5x2>
  }
}
