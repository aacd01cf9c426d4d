//===- EmulatedPlanNoWaitsTest.cpp - The reference plan without memo waits ===//
//
// EmulatedPlanTest.cpp's tests once more, with the fused step's advance
// compiled as `memo-max-waits` auto compiles it from B = 16384 (no waits,
// PROOFC_MEMO_WAITS 0): that machine code runs the large workloads, and no
// other test runs its plan against the host backend. The suites are named
// with NoWaits; the kernels are renamed apart from the other copy.
//
//===----------------------------------------------------------------------===//
#define PROOFC_PLAN_NO_WAITS 1
#include "EmulatedPlanTest.cpp"
