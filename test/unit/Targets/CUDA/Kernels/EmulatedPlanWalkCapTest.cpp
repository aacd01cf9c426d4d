//===- EmulatedPlanWalkCapTest.cpp - The reference plan, walks paused ---===//
//
// EmulatedPlanTest.cpp's tests once more, the fused step's advance-engine
// with the waits of auto (PROOFC_MEMO_WAITS 2) and its memo walk paused
// after every hit (PROOFC_MEMO_WALK_HITS 1, where the kernels as built
// pause after 8): a slot that took a step from the memo waits a step at
// the state it reached and resumes there, so each hit of a walk is taken
// in a launch of its own. Every status, depth, log-probability and
// recorded action must still be the host backend's. The suites are named
// with WalkCap; the kernels are renamed apart from the other copies.
//
//===----------------------------------------------------------------------===//
#define PROOFC_PLAN_WALK_CAP 1
#include "EmulatedPlanTest.cpp"
