#!/usr/bin/env bash
# Call B: the step policy's read-only vector loads through the
# non-coherent path (bench/proto/nc_loads.py: the policy PTX's
# `ld.global.v4.b32`, tables and weights, made `ld.global.nc`, "nc4"; with
# the state words' `ld.global.v2.b32` too, "nc42"; the NVPTX backend made
# 6 of the 48 v4 loads .nc and none of the v2) against e9ec923's bundles,
# "base". V10 at B = 12288 (folded): outcomes against base's, session
# bench three rounds interleaved. fb15k-237's whole split (B = 16384,
# unfolded) base, nc4, nc42, results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
e=.gpudata/exp
B=.fbdata/bundles
call_reference $e/base-b12288.pcb
call_outcomes nc4-b12288 $e/nc4-b12288.pcb
call_outcomes nc42-b12288 $e/nc42-b12288.pcb
call_outcomes nc42-b12288-host $e/nc42-b12288.pcb --cond host
S=$N/bin/proofc-session-bench
call_session_median $S $e/base-b12288.pcb "warmup" > /dev/null
for round in 1 2 3; do
  for v in base nc4 nc42; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
done
echo "v10 at $(( $(date +%s) - t0 )) s"
for v in base nc4 nc42; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v timeout 150 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'wall', j['wall_seconds'], 'rss GiB', j['max_rss_gib'], 'timings', json.dumps(j.get('timings')))" $OUT/$v/scale-out/one.json $v 2>/dev/null
  echo "fb $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/base/scale-out/one.json $OUT/nc4/scale-out/one.json $OUT/nc42/scale-out/one.json <<'PY'
import json, sys
r = []
for p in sys.argv[1:]:
    try: r.append(json.load(open(p)).get("results"))
    except Exception as e: print("missing", p, e); r.append(None)
print("results nc4 == base:", r[1] is not None and r[1] == r[0], "nc42 == base:", r[2] is not None and r[2] == r[0])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT base nc4 nc42 2>/dev/null; rm -rf $OUT/base $OUT/nc4 $OUT/nc42
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
