#!/usr/bin/env bash
# Call A: the advance by a warp (advance.cu's advanceSlotWarp, memo.cu's
# warp lookup: a state word a lane) in the step schedule's fused
# advance-engine, "new" (ptxas sm_90: 56 registers instead of 120 at
# B = 8192, 54 at 4096, 64 at 16384 under its cap of 96), against 2d87b3d's
# bundles, "old". V10 (kinship 100 x 100, the trained policy): outcomes of
# every new variant against old B = 8192's (byte-identical across B and
# cond modes today), every bundle run once first (its optimized kernels
# then come from the kernel cache); session bench medians, three rounds,
# interleaved; CUPTI timelines at 8192, old and new.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/exp/old-b8192.pcb
call_outcomes old-b4096 .gpudata/exp/old-b4096.pcb
call_outcomes old-b16384 .gpudata/exp/old-b16384.pcb
for B in 256 4096 8192; do call_outcomes new-b$B .gpudata/bundles/v10-b$B.pcb; done
call_outcomes new-b16384 .gpudata/exp/new-b16384.pcb
call_outcomes new-b8192-w0 .gpudata/exp/new-b8192-w0.pcb
call_outcomes new-b8192-e64 .gpudata/exp/new-b8192-e64.pcb
call_outcomes new-b8192-t0 .gpudata/bundles/v10-step-b8192-t0.pcb
call_outcomes new-b8192-emulated .gpudata/bundles/v10-b8192.pcb --cond emulated
call_outcomes new-b8192-host .gpudata/bundles/v10-b8192.pcb --cond host
call_outcomes new-b4096-host .gpudata/bundles/v10-b4096.pcb --cond host
call_outcomes new-b8192-proofs .gpudata/bundles/v10-b8192.pcb --proofs /tmp/proofs-new.txt
call_outcomes old-b8192-proofs .gpudata/exp/old-b8192.pcb --proofs /tmp/proofs-old.txt
cmp -s /tmp/proofs-new.txt /tmp/proofs-old.txt && echo "proofs byte-identical" || echo "proofs DIFFER"
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for B in 8192 4096; do
    call_session_median $S .gpudata/exp/old-b$B.pcb "old b$B r$round"
    call_session_median $S .gpudata/bundles/v10-b$B.pcb "new b$B r$round"
  done
  [ $round = 3 ] || continue
  call_session_median $S .gpudata/exp/new-b8192-e64.pcb "new b8192-e64 r$round"
  call_session_median $S .gpudata/exp/old-b16384.pcb "old b16384 r$round"
  call_session_median $S .gpudata/exp/new-b16384.pcb "new b16384 r$round"
done
echo "measured at $(( $(date +%s) - t0 )) s"
call_timeline_lib /tmp/kt.so
for v in old new; do
  b=.gpudata/exp/old-b8192.pcb; [ $v = new ] && b=.gpudata/bundles/v10-b8192.pcb
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv timeout 60 $S $b --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-$v.csv $v --launches 2>&1 | tail -4
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
