#!/usr/bin/env bash
# Call A (one H100): the clock counters after row 57, on the optimized tier
# (PROOFC_COMPILE_TIERS=off: every module's first compile is the optimized
# one), and what the advance in the policy's 1.59x is made of (the CUPTI
# timelines of 2026-12-06's call C ran the quick tier).
#   - V10 (kinship 100 x 100, the trained policy) on bench/prepare.sh's
#     B = 12288 bundle: the reference outcomes; .exp/clock-b12288.pcb
#     (clock_step.py: the advance-engine's parts per step),
#     .exp/clockpol-b12288.pcb (clock_policy.py, MAXGRID 2000: the
#     thinning steps' tiles, where they barely contend) and
#     .exp/clockpolfull-b12288.pcb (MAXGRID 100000, STRIDE 16: a sample of
#     every launch's tiles, the full steps' under contention), each
#     checked byte for byte against the reference;
#   - CUPTI timelines, five session calls each, of the bundle and of
#     .exp/inpolicy-b12288.pcb (proofc compile --advance-in-policy), and
#     .exp/clockpolap-b12288.pcb (the latter's policy by clock_policy.py,
#     STRIDE 16) for the advancing tiles' cycles;
#   - session bench run medians of both, two rounds interleaved.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
export PROOFC_COMPILE_TIERS=off
S=$N/bin/proofc-session-bench
base=.gpudata/bundles/v10-b12288.pcb
ap=.exp/inpolicy-b12288.pcb
call_reference $base
call_outcomes inpolicy-b12288 $ap
r=$N/bin/proofc-run
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet"
for c in clock-b12288 clockpol-b12288 clockpolfull-b12288 clockpolap-b12288; do
  [ -f .exp/$c.pcb ] || { echo "$c: no bundle"; continue; }
  timeout 120 $r .exp/$c.pcb $W --outcomes /tmp/$c.tsv > $OUT/$c.txt 2>&1 || { echo "$c failed"; tail -3 $OUT/$c.txt; }
  cmp -s /tmp/$c.tsv /tmp/ref.tsv && echo "$c outcomes byte-identical" || echo "$c outcomes DIFFER"
done
echo "clocks at $(( $(date +%s) - t0 )) s"
grep -E "^(STEP|CYC|CRIT)" $OUT/clock-b12288.txt | head -80
for c in clockpol-b12288 clockpolfull-b12288 clockpolap-b12288; do
  [ -f $OUT/$c.txt ] && { echo "== $c"; python3 bench/proto/clock_policy.py --summary $OUT/$c.txt 2>&1 | head -40; }
done
call_timeline_lib /tmp/kt.so
call_trace $S $base base 5 50
call_trace $S $ap inpolicy 5 50
echo "traced at $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  call_session_median $S $base "base-b12288 r$round"
  call_session_median $S $ap "inpolicy-b12288 r$round"
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
gzip -f $OUT/*.csv $OUT/clock*.txt
echo "all $(( $(date +%s) - t0 )) s"
