#!/usr/bin/env bash
# Call B (one H100): the walk cap of call A (-DPROOFC_MEMO_MAX_HITS=n on the
# advance module, the source of call A's tree) swept: n = 6, 8, 12, 16 at
# B = 12288, 8 and 12 at 8192, 8 at 4096 and 1024, each against the same
# compiler's bundle without the option ("new"). Outcomes against the
# landed B = 12288 bundle's; session bench medians, three rounds
# interleaved.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
e=.exp
call_reference .gpudata/bundles/v10-b12288.pcb
V12288="-c6 -c8 -c12 -c16"; V8192="-c8 -c12"; V4096="-c8"; V1024="-c8"
for B in 12288 8192 4096 1024; do
  eval "vs=\$V$B"
  for v in "" $vs; do call_outcomes b$B$v $e/new-b$B$v.pcb; done
done
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for B in 12288 8192 4096 1024; do
    eval "vs=\$V$B"
    for v in "" $vs; do call_session_median $S $e/new-b$B$v.pcb "b$B$v r$round"; done
  done
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
