#!/usr/bin/env bash
# Call A (one H100): what the step's two launches cost at fewer blocks an
# SM, the premise of a fused step kernel (docs/performance.md, "A fused
# step kernel, projected"). A fused kernel would run each slot's advance
# and derive in the policy's own blocks, at the policy's 20 warps an SM
# rather than the advance-engine's 32. The bundles (.exp, make_variants.py)
# raise one launch's dynamic shared memory, which its kernel does not read:
# the advance-engine at 32 (a control: the same blocks, a smaller L1), 24,
# 20 and 16 blocks an SM; the step policy at 20 (a control), 16 and 12.
# Outcomes against the bundle as compiled; session bench medians, three
# rounds interleaved; CUPTI timelines of each.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
e=.exp
V="adv-d200 adv-d3100 adv-d5000 adv-d7800 pol-d5600 pol-d8200 pol-d13000"
call_reference .gpudata/bundles/v10-b12288.pcb
for v in $V; do call_outcomes $v $e/v10-b12288-$v.pcb; done
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  call_session_median $S .gpudata/bundles/v10-b12288.pcb "base r$round"
  for v in $V; do call_session_median $S $e/v10-b12288-$v.pcb "$v r$round"; done
done
echo "measured at $(( $(date +%s) - t0 )) s"
call_timeline_lib /tmp/kt.so
for v in base $V; do
  b=$e/v10-b12288-$v.pcb; [ $v = base ] && b=.gpudata/bundles/v10-b12288.pcb
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv timeout 60 $S $b --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-$v.csv $v --launches 2>&1 | tail -3
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
