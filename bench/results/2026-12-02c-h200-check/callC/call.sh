#!/usr/bin/env bash
# Call C: call_lib.sh's call_cold_run and call_cold_session, run for the
# first time on the tree they landed in (6aeed12's runtime: c608483's):
# two rounds of a cold proofc-run at tiers auto and off, one cold session
# bench at auto.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
for r in 1 2; do
  call_cold_run auto-$r $N/bin/proofc-run auto
  call_cold_run off-$r $N/bin/proofc-run off
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-off-1.bin || echo "$f DIFFERS from off-1"; done; echo "outcomes compared"
call_cold_session auto-1 $N/bin/proofc-session-bench auto
echo "all $(( $(date +%s) - t0 )) s"
