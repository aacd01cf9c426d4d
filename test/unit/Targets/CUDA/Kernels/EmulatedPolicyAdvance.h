//===- EmulatedPolicyAdvance.h - the emulated advance --------- -*- C++ -*-===//
//
// What EmulatedPolicyAdvanceTest.cpp and EmulatedPolicyAdvanceSlot.cpp
// share: the kernels' shape (V10's A and S; the policy fixture's block of d
// = 64 threads, which also derives) and slot.cu's advance function as
// compiled there, renamed apart from the other emulated copies.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_TARGETS_CUDA_KERNELS_EMULATEDPOLICYADVANCE_H
#define PROOFC_TEST_UNIT_TARGETS_CUDA_KERNELS_EMULATEDPOLICYADVANCE_H

// Macros, not constants: the kernels test them in #if.
#define EMULATED_POLICY_ADVANCE_A 6
#define EMULATED_POLICY_ADVANCE_S 120
#define EMULATED_POLICY_ADVANCE_THREADS 64
/// The policy's dynamic shared memory: more than the derive's scratch for
/// these (engine.cu's static_assert-checked DeriveScratch, ~10 KB).
constexpr int kEmulatedPolicyRowsBytes = 16 << 10;

/// slot.cu's proofc_policy_advance (EmulatedPolicyAdvanceSlot.cpp).
extern "C" int proofc_policy_advance_emulated(int b,
                                              const unsigned long long *args);

#endif
