#!/usr/bin/env bash
# Call A (one H100): the L1 of the advance-engine. Its 32 blocks an SM of
# 5.4 KB of shared memory (and 1 KB the driver reserves each) need the
# 228 KB carveout, which leaves the L1 28 KB, while its derives read the
# facts, their indexes and the rules through it. The tree carries
# carveout-experiment.patch (the runtime sets a launch's preferred carveout
# from PROOFC_EXP_CARVEOUT_<launch>, a percentage of 228 KB; not landed):
# the advance-engine at 86 % (196 KB: 31 blocks, L1 60 KB), 72 % (164 KB:
# 26 blocks, L1 92 KB), 58 % (132 KB: 21 blocks, L1 124 KB); the step
# policy at 44 % (100 KB: 17 blocks, L1 156 KB; today 132 KB, 21 blocks).
# Outcomes against the bundle as run today; session bench medians, three
# rounds interleaved; CUPTI timelines of each.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
b=.gpudata/bundles/v10-b12288.pcb
V="base advance_engine=86 advance_engine=72 advance_engine=58 score_select=44"
use() { # use VARIANT: its carveout for the commands that follow
  unset PROOFC_EXP_CARVEOUT_advance_engine PROOFC_EXP_CARVEOUT_score_select
  [ "$1" = base ] || export "PROOFC_EXP_CARVEOUT_${1%=*}=${1#*=}"
}
call_reference $b
for v in $V; do use $v; call_outcomes ${v/=/-} $b; done
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for v in $V; do use $v; call_session_median $S $b "${v/=/-} r$round"; done
done
echo "measured at $(( $(date +%s) - t0 )) s"
call_timeline_lib /tmp/kt.so
for v in $V; do
  l=${v/=/-}
  use $v
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$l.csv timeout 60 $S $b --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $l failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-$l.csv $l --launches 2>&1 | tail -3
done
mkdir -p /tmp/keep; rm -f /tmp/keep/*; mv $OUT/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
