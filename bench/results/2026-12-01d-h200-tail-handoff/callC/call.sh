#!/usr/bin/env bash
# Call C: call B's timelines again (call B's came back as too many files):
# the last call of three, per kernel, for the step bundle and the
# hand-off at T = 264 and 1024; on the runtime call B built.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
N=build-gpu-device
call_build $N proofc-session-bench || exit 1
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
call_timeline_lib /tmp/kt.so
mkdir -p $OUT/tl
for v in step-8192 tail-8192-t264 tail-8192-t1024; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl/$v.csv $N/bin/proofc-session-bench .gpudata/th/$v.pcb $W --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/results/2026-12-01d-h200-tail-handoff/callC/steps.py $OUT/tl/$v.csv | tail -30
done
tar -czf $OUT/tl.tar.gz -C $OUT tl && rm -rf $OUT/tl
