#!/usr/bin/env bash
# Call D: B = 16384 with the policy's tiles listed (new: this tree's
# choosePolicyGridResize from 1024 without the upper bound) against
# b485e4b's every-slot grid (old), on the rest of what runs at 16384:
# V10's outcomes against B = 12288's (.gpudata/sweep), session bench
# medians (three rounds, interleaved), and wn18rr's whole test split with
# every filtered corruption (the shipped trained policy; bench/scale-out/
# run.sh one with WORKLOAD=wn18rr), results compared.
set -uo pipefail
source bench/proto/call_lib.sh
# No carried .gpudata/bundles (the compiler's sources changed since they
# were compiled: gpu-build.sh's check); wn18rr's bundle is copied in below.
rm -rf .gpudata/bundles
call_start proofc-run proofc-session-bench || exit 1
e=.gpudata/exp2
call_reference .gpudata/sweep/b12288.pcb
for v in old new; do call_outcomes $v-b16384 $e/$v-b16384.pcb; done
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for v in old new; do call_session_median $S $e/$v-b16384.pcb "$v b16384 r$round"; done
done
echo "measured at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
mkdir -p .gpudata/bundles
for v in old new; do
  cp $e/$v-b16384.pcb .gpudata/bundles/v10-b16384.pcb
  WORKLOAD=wn18rr OUT=$OUT/wn-$v timeout 120 bash bench/scale-out/run.sh one > /tmp/wn-$v.log 2>&1 || { echo "wn18rr $v failed"; tail -5 /tmp/wn-$v.log; }
  echo "wn18rr $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/wn-old/scale-out-wn18rr/one.json $OUT/wn-new/scale-out-wn18rr/one.json <<'PY'
import json, sys
js = []
for p in sys.argv[1:]:
    try: js.append(json.load(open(p)))
    except Exception as e: print("missing", p, e); js.append(None)
for name, j in zip(("old", "new"), js):
    if j: print("wn18rr", name, "wall", j["wall_seconds"], "rss GiB", j["max_rss_gib"], "timings", json.dumps(j.get("timings")))
r = [j.get("results") if j else None for j in js]
print("results new == old:", r[1] is not None and r[1] == r[0])
PY
rm -rf $OUT/wn-*/scale-out-wn18rr/*.tsv 2>/dev/null
tar -czf $OUT/wn.tar.gz -C $OUT wn-old wn-new 2>/dev/null; rm -rf $OUT/wn-old $OUT/wn-new
echo "all $(( $(date +%s) - t0 )) s"
