#!/usr/bin/env bash
# Call A (one H100): the memo walk capped. advance.cu's advanceSlot takes
# every step the memo knows in one advance; in V10's full steps the
# slowest slot of an advance-engine launch walks 15-19 hits (38-55 k
# cycles, "The clock counters after row 51"). With -DPROOFC_MEMO_MAX_HITS=n
# a slot that has taken n hits stops and waits a step (memoClaims[b] = -1,
# no children), resuming its walk at the next advance; with
# -DPROOFC_MEMO_HITS_WHILE_POOL=1 only while the pool holds candidates.
# Bundles (.exp, carried as .carry/exp.tar.gz): examples/v10.mlir compiled
# by this tree at B = 12288 and 8192 ("new", the cap compiled out), and
# variants whose advance module adds the options (c2, c4, c8: n = 2, 4, 8;
# c4p, c8p: while the pool holds candidates). Outcomes against the landed
# B = 12288 bundle's; session bench medians, three rounds interleaved;
# CUPTI timelines of new and c4 at 12288.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
e=.exp
call_reference .gpudata/bundles/v10-b12288.pcb
for B in 12288 8192; do
  for v in "" -c2 -c4 -c8 -c4p -c8p; do call_outcomes b$B$v $e/new-b$B$v.pcb; done
done
call_outcomes b12288-c4-host $e/new-b12288-c4.pcb --cond host
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  call_session_median $S .gpudata/bundles/v10-b12288.pcb "landed b12288 r$round"
  for v in "" -c2 -c4 -c8 -c4p -c8p; do call_session_median $S $e/new-b12288$v.pcb "b12288$v r$round"; done
  for v in "" -c4 -c4p; do call_session_median $S $e/new-b8192$v.pcb "b8192$v r$round"; done
done
echo "measured at $(( $(date +%s) - t0 )) s"
call_timeline_lib /tmp/kt.so
for v in "" -c4; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-b12288$v.csv timeout 60 $S $e/new-b12288$v.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-b12288$v.csv b12288$v --launches 2>&1 | tail -60
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
