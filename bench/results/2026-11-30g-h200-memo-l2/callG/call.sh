#!/usr/bin/env bash
# Call G: the review mends (TestUtil.h's relevantSteps, shared by both
# RelevantSteps tests): the compiled bundles' tests
# (CompiledBundle.*), then RelevantStepsAreTheCandidatesOwn against the
# planted bundle (memo.cu's makeKey never keys by the candidate): it must
# fail there.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh 'CompiledBundle.*' > /tmp/gc.out 2>&1; echo "gpu-check CompiledBundle.* exit $? at $(( $(date +%s) - t0 )) s"
tail -4 /tmp/gc.out; cp /tmp/gc/failures.log /tmp/gc/tests.log $OUT/ 2>/dev/null
grep -E '^\[       OK \]|^\[  FAILED  \]' /tmp/gc/tests.log | sort | uniq | head -30
export PROOFC_SHARED_DIR=$PWD/.gpudata PROOFC_CACHE_DIR=/tmp/pc
PROOFC_TEST_BUNDLE=$PWD/.gpudata/planted/v10-step-b4096-planted.pcb build-gpu-device/bin/proofc-unittests --gtest_filter='CompiledBundle.RelevantSteps*' > /tmp/planted.log 2>&1
echo "planted bundle: exit $? (non-zero expected)"
grep -E '^\[  (FAILED|PASSED|SKIPPED) |Failure|candidate' /tmp/planted.log | head -8
echo "all $(( $(date +%s) - t0 )) s"
