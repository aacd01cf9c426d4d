#!/usr/bin/env bash
# Call C: with the advance by a warp, B = 16384's knobs (auto there: no
# memo waits, the advance-engine capped at 96 registers, which the warp's
# 64 no longer reach, no tail hand-off, no policy grid resize), and B =
# 12288 (8192's knobs) with the tail hand-off at 512: V10 outcomes against
# B = 8192's, session bench medians (two rounds). Then fb15k-237's whole
# test split with every filtered corruption on one GPU (bench/scale-out/
# run.sh one, seed-0 random weights, B = 16384; .fbdata from
# bench/scale-out/prepare.sh, its data as fb.tar.gz): 2d87b3d's bundle
# (old), this tree's (new), and this tree's with --memo-max-waits 2 (w2);
# results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/exp/new-b8192.pcb
variants="b12288-h512 b16384-w2 b16384-w2-h264"
for v in $variants; do call_outcomes new-$v .gpudata/exp/new-$v.pcb; done
S=$N/bin/proofc-session-bench
for round in 1 2; do
  for v in b12288 $variants b16384; do call_session_median $S .gpudata/exp/new-$v.pcb "new $v r$round"; done
done
echo "measured at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
tar -xzf .fbdata/fb.tar.gz -C .fbdata
B=.fbdata/bundles
mv $B/v10-b16384.pcb $B/v10-b16384-new.pcb
for v in old new w2; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v timeout 200 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  echo "fb $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/old/scale-out/one.json $OUT/new/scale-out/one.json $OUT/w2/scale-out/one.json <<'PY'
import json, sys
js = []
for p in sys.argv[1:]:
    try: js.append(json.load(open(p)))
    except Exception as e: print("missing", p, e); js.append(None)
for name, j in zip(("old", "new", "w2"), js):
    if j: print(name, "wall", j["wall_seconds"], "rss GiB", j["max_rss_gib"], "timings", json.dumps(j.get("timings")))
r = [j.get("results") if j else None for j in js]
print("results new == old:", r[1] is not None and r[1] == r[0], " w2 == old:", r[2] is not None and r[2] == r[0])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT old new w2 2>/dev/null; rm -rf $OUT/old $OUT/new $OUT/w2
echo "all $(( $(date +%s) - t0 )) s"
