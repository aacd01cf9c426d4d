#!/usr/bin/env bash
# Call A: the first GPU run of the last stop's review mends (9fc6895,
# 20d1cc2, 8a89576: the background prologue's fallback, one quick attempt,
# one NVRTC key and compile, the prologue's compile started after the
# knowledge base). 1. V10 at B = 8192 cold, three rounds of: tiers auto,
# off (the new order's cold times). 2. The GPU suites (scripts/gpu-check.sh),
# GpuCompileTiers and GpuDevicePrologue's quick test among them.
# (As run, its cold helper was written out here; call_lib.sh's
# call_cold_run is that helper, its line with the optimized tier's time
# added, and the label 10 characters wide instead of 8.)
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-unittests || exit 1

echo "== 1. cold proofc-run"
for r in 1 2 3; do
  call_cold_run auto-$r $N/bin/proofc-run auto
  call_cold_run off-$r $N/bin/proofc-run off
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-off-1.bin || echo "$f DIFFERS from off-1"; done; echo "outcomes compared"
echo "at $(( $(date +%s) - t0 )) s"

echo "== 2. GPU suites"
OUT=/tmp/gc timeout $(( 570 - ($(date +%s) - t0) )) scripts/gpu-check.sh > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -6 /tmp/gc.txt
grep -E '^\[ tiers|FAILED' /tmp/gc/tests.log | head -20
cp /tmp/gc/failures.log $OUT/ 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
