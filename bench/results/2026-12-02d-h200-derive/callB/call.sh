#!/usr/bin/env bash
# Call B: two changes against f03f8a6's bundles (old), V10, kinship's
# trained policy: "new", the derive's kept states stored a word a thread
# (coalesced) instead of a thread's own state (one word in each of 32
# sectors); "pa", the same with --policy-advances (the step policy's
# selecting thread advances its slot through policy_advance.cu, linked in;
# the advance-engine only derives: 47 registers instead of 120). Outcomes
# of every variant against old B = 8192's (byte-identical across B and
# cond modes today), session bench medians (three rounds, interleaved),
# CUPTI timelines at 8192.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/bundles/v10-b8192.pcb
for B in 256 4096 8192; do call_outcomes new-b$B .gpudata/exp2/new-b$B.pcb; done
for v in b512 b1024 b4096 b8192 b16384 b8192-t0 b8192-w0; do call_outcomes pa-$v .gpudata/exp2/pa-$v.pcb; done
call_outcomes pa-b8192-emulated .gpudata/exp2/pa-b8192.pcb --cond emulated
call_outcomes pa-b8192-host .gpudata/exp2/pa-b8192.pcb --cond host
call_outcomes pa-b4096-host .gpudata/exp2/pa-b4096.pcb --cond host
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for B in 8192 4096; do
    call_session_median $S .gpudata/bundles/v10-b$B.pcb "old b$B r$round"
    call_session_median $S .gpudata/exp2/new-b$B.pcb "new b$B r$round"
    call_session_median $S .gpudata/exp2/pa-b$B.pcb "pa b$B r$round"
  done
  [ $round = 3 ] || continue
  call_session_median $S .gpudata/bundles/v10-b256.pcb "old b256 r$round"
  call_session_median $S .gpudata/exp2/new-b256.pcb "new b256 r$round"
  call_session_median $S .gpudata/exp2/pa-b16384.pcb "pa b16384 r$round"
  call_session_median $S .gpudata/exp2/pa-b8192-t0.pcb "pa b8192-t0 r$round"
done
call_timeline_lib /tmp/kt.so
for v in old new pa; do
  b=.gpudata/exp2/$v-b8192.pcb; [ $v = old ] && b=.gpudata/bundles/v10-b8192.pcb
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv $S $b --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-$v.csv $v --launches 2>&1 | tail -4
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
