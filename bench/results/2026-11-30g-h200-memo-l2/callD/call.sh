#!/usr/bin/env bash
# Call D: the GPU tests (scripts/gpu-check.sh) with the new
# CompiledBundle.RelevantStepsAreTheCandidatesOwn, then that test alone
# against a bundle whose memo never keys a step by its candidate (the
# B=4096 step bundle with memo.cu's makeKey patched in its embedded
# sources, .gpudata/planted/): it must fail there.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -6 /tmp/gc.out; cp /tmp/gc/failures.log /tmp/gc/tests.log $OUT/ 2>/dev/null
grep -E 'RelevantSteps' /tmp/gc/tests.log
export PROOFC_SHARED_DIR=$PWD/.gpudata PROOFC_CACHE_DIR=/tmp/pc
PROOFC_TEST_BUNDLE=$PWD/.gpudata/planted/v10-step-b4096-planted.pcb build-gpu-device/bin/proofc-unittests --gtest_filter='CompiledBundle.RelevantSteps*' > /tmp/planted.log 2>&1
echo "planted bundle: exit $? (non-zero expected)"
grep -E '^\[  (FAILED|PASSED|SKIPPED) |Failure|candidate' /tmp/planted.log | head -8
echo "all $(( $(date +%s) - t0 )) s"
