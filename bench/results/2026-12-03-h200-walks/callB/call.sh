#!/usr/bin/env bash
# Call B: 1. V10 at B = 10240 and 14336 beside 12288 (776bdab's compiler,
# each B's auto knobs; the fastest B measured so far is 12288, between the
# 8192 and 16384 of the earlier sweeps): outcomes against 12288's, then
# session bench medians, three rounds interleaved. 2. The GPU suites
# (scripts/gpu-check.sh, the bundles of scripts/prepare-gpu-run.sh
# compiled by 776bdab's compiler) on the tree of advance.cu's one walk and
# memo.cu's one probe protocol: their summary and the failures' log,
# within CALL_BUDGET seconds of the call's start (585; 555 when it ran
# after another script in the same call).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
s=.gpudata/sweep
call_reference $s/b12288.pcb
for B in 10240 14336; do call_outcomes b$B $s/b$B.pcb; done
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for B in 12288 10240 14336; do call_session_median $S $s/b$B.pcb "b$B r$round"; done
done
echo "swept at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
OUT=/tmp/gc timeout $(( ${CALL_BUDGET:-585} - ($(date +%s) - t0) )) scripts/gpu-check.sh > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -8 /tmp/gc.txt
grep -E 'FAILED' /tmp/gc/tests.log | head -20
cp /tmp/gc/failures.log $OUT/ 2>/dev/null
tar -czf $OUT/check.tar.gz -C /tmp/gc . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
