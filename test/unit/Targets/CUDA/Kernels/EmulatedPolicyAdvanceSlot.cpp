//===- EmulatedPolicyAdvanceSlot.cpp - slot.cu's advance in the policy ----===//
//
// The other half of EmulatedPolicyAdvanceTest.cpp: slot.cu compiled as the
// advance in the policy's `policy_advance` module (-DPROOFC_ADVANCE_IN_POLICY
// with the memo waits of auto below B = 16384) through the CPU shim, in a
// file of its own because step.cu, which the test's plan also runs, includes
// the same engine.cu, memo.cu and advance.cu under other macros. Its
// namespaces and function are renamed apart from the other copies; the
// policy's dynamic shared memory, which the shim does not have, is an array
// here (slot.cu's PROOFC_EMULATED_POLICY_ROWS).
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#include "EmulatedPolicyAdvance.h"

#define PROOFC_A EMULATED_POLICY_ADVANCE_A
#define PROOFC_S EMULATED_POLICY_ADVANCE_S
#define PROOFC_ENGINE_THREADS EMULATED_POLICY_ADVANCE_THREADS
#define PROOFC_MEMO_WAITS 2
#define PROOFC_ADVANCE_IN_POLICY 1
#define PROOFC_EMULATED_POLICY_ROWS 1
#define proofc_engine_impl proofc_engine_impl_policy_advance
#define proofc_step proofc_step_policy_advance
#define proofc_memo proofc_memo_policy_advance
#define proofc_slot proofc_slot_policy_advance
#define proofc_policy_advance proofc_policy_advance_emulated
#define proofc_policy_rows proofc_policy_rows_emulated
alignas(16) unsigned char proofc_policy_rows[kEmulatedPolicyRowsBytes];
#include "Kernels/slot.cu"
