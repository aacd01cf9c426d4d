#!/usr/bin/env bash
# Call F: the review mend's one list of test bundles (test/compiled-bundles.txt)
# on the GPU machine: gpu-check.sh forms PROOFC_TEST_BUNDLE from it, and the
# compiled-bundle and rollout tests run all four bundles.
set -uo pipefail
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh 'CompiledBundle.*:GpuRollouts.*' > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/tests.log $OUT/ 2>/dev/null
for b in v10-step v10-persistent v10-step-b4096 v10-step-b8192; do echo "$b: $(grep -c "bundles/$b.pcb" /tmp/gc/tests.log) lines"; done
grep -E '^\[       OK \]|^\[  FAILED  \]' /tmp/gc/tests.log | sort | uniq
