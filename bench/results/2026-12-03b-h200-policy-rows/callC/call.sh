#!/usr/bin/env bash
# Call C: fb15k-237's whole test split with every filtered corruption on
# one GPU (bench/scale-out/run.sh one, seed-0 random weights, B = 16384;
# .fbdata from bench/scale-out/prepare.sh, its data as fb.tar.gz) with
# b485e4b's bundle (old: the policy's every-slot grid, B x 8 one-warp
# blocks, at 16384) and with the advance-engine listing the policy's
# tiles there too (resize: choosePolicyGridResize from 1024 without the
# upper bound), also with the tail hand-off at 264 (resize-h264); results
# compared. Then GpuCompileTiers (scripts/gpu-check.sh's filter) with
# the cache-count check that admits the background build's PTX entry.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
B=.fbdata/bundles
mv $B/v10-b16384.pcb $B/v10-b16384-old.pcb
for v in old resize resize-h264; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v timeout 150 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  echo "fb $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/old/scale-out/one.json $OUT/resize/scale-out/one.json $OUT/resize-h264/scale-out/one.json <<'PY'
import json, sys
js = []
for p in sys.argv[1:]:
    try: js.append(json.load(open(p)))
    except Exception as e: print("missing", p, e); js.append(None)
for name, j in zip(("old", "resize", "resize-h264"), js):
    if j: print(name, "wall", j["wall_seconds"], "rss GiB", j["max_rss_gib"], "timings", json.dumps(j.get("timings")))
r = [j.get("results") if j else None for j in js]
print("results resize == old:", r[1] is not None and r[1] == r[0], " resize-h264 == old:", r[2] is not None and r[2] == r[0])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT old resize resize-h264 2>/dev/null; rm -rf $OUT/old $OUT/resize $OUT/resize-h264
OUT=/tmp/gc timeout $(( 585 - ($(date +%s) - t0) )) scripts/gpu-check.sh 'GpuCompileTiers.*' > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -6 /tmp/gc.txt
cp /tmp/gc/tests.log $OUT/tiers.log 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
