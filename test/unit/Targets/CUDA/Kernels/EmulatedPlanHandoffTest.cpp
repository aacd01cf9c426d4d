//===- EmulatedPlanHandoffTest.cpp - The reference plan, tail hand-off -===//
//
// EmulatedPlanTest.cpp's EmulatedPlanVsHost tests once more, the fused
// step's advance-engine compiled with the tail hand-off
// (PROOFC_TAIL_HANDOFF, as eval-lower-to-gpu's tail-handoff compiles it):
// the step that starts with at most 15 slots listed ends the loop, leaving
// every listed slot with its children and no slot waiting
// (EmulatedPlan::checkHandoff), and the tail, emulated as the persistent
// kernel takes it (EmulatedPlan::runTail: score, advance without waits,
// derive), finishes each candidate as the host does;
// EmulatedPlanTail.APendingStepIsComputedAtTheHandoff claims a slot's step
// for another slot just before the hand-off's step. The generated tail
// kernel itself runs on the GPU only (CompiledBundleGpuTest, the b8192
// bundle of test/compiled-bundles.txt). The suites are named with Handoff;
// the kernels are renamed apart from the other copies.
//
//===----------------------------------------------------------------------===//
#define PROOFC_PLAN_HANDOFF 1
#include "EmulatedPlanTest.cpp"
