#!/usr/bin/env bash
# Call C (one H100, after call A): CUPTI timelines of V10 at B = 12288,
# bench/prepare.sh's bundle ("base") and the advance in the policy's
# (.exp/inpolicy-b12288.pcb), three session calls each: each step's
# launches and their sums (timeline_runs.py --launches).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-session-bench || exit 1
S=$N/bin/proofc-session-bench
call_timeline_lib /tmp/kt.so
for v in base inpolicy; do
  b=.gpudata/bundles/v10-b12288.pcb
  [ $v = inpolicy ] && b=.exp/inpolicy-b12288.pcb
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv timeout 60 $S $b \
    --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 \
    > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-$v.csv $v --launches 2>&1 | tail -45
  cp /tmp/tl-$v.csv $OUT/
done
gzip $OUT/*.csv
echo all $(($(date +%s) - t0)) s
