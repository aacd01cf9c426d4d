//===- RolloutKernelsListedEmulationTest.cpp - Rollouts on the listed step ===//
//
// RolloutKernelsEmulationTest.cpp's CUDA path once more, with step.cu's
// advance module as proofc compile builds it from B = 8192
// (kernel_abi.h's kEngineListOption): the advance-engine lists the active
// slots for its own next launch and resizes that launch's node, so that
// after the pool empties block i runs the i-th listed slot, not slot i. A
// rollout bundle of that size runs this machine code; the suites are named
// with Listed, and the kernels are renamed apart from the other copy.
//
//===----------------------------------------------------------------------===//
#define PROOFC_ROLLOUT_LISTED 1
#include "RolloutKernelsEmulationTest.cpp"
