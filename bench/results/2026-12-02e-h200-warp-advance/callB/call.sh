#!/usr/bin/env bash
# Call B: with the advance by a warp (call A's "new", this tree's bundles),
# the step schedule's knobs again at B = 8192: the tail hand-off at 128,
# 512 and 1024 slots (auto: 264), the memo's waits 1 and 4 (auto: 2), and
# B = 6144 and 12288; outcomes against B = 8192's, session bench medians
# (two rounds, interleaved with the default). Then bench/run.sh on this
# tree (bench/prepare.sh's bundles), the cond-free torch port at its
# fastest B (4096) in the same call.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/bundles/v10-b8192.pcb
variants="b8192-h128 b8192-h512 b8192-h1024 b8192-w1 b8192-w4 b6144 b12288"
for v in $variants; do call_outcomes new-$v .gpudata/exp/new-$v.pcb; done
S=$N/bin/proofc-session-bench
for round in 1 2; do
  call_session_median $S .gpudata/bundles/v10-b8192.pcb "new b8192 r$round"
  for v in $variants; do call_session_median $S .gpudata/exp/new-$v.pcb "new $v r$round"; done
done
echo "measured at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5 2>&1 | tail -40
echo "all $(( $(date +%s) - t0 )) s"
