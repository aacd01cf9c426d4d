#!/usr/bin/env bash
# Call C: row 53, a slot whose children fit one policy block (k <= 15)
# selects without the arrival count and its fences (Selection.cpp), "new",
# against e9ec923's bundles, "base". V10 (kinship 100 x 100, the trained
# policy): new's outcomes at B = 4096, 8192, 12288, 16384 and 12288 with
# --cond host against base B = 12288's; session bench medians, three rounds
# interleaved, at 12288 and 8192. fb15k-237's whole test split with every
# filtered corruption (bench/scale-out/run.sh one, B = 16384, seed-0
# random weights): base then new, results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
e=.gpudata/exp
call_reference $e/base-b12288.pcb
for B in 4096 8192 12288 16384; do call_outcomes new-b$B $e/new-b$B.pcb; done
call_outcomes new-b12288-host $e/new-b12288.pcb --cond host
call_outcomes base-b16384 .fbdata/bundles/v10-b16384-base.pcb
S=$N/bin/proofc-session-bench
call_session_median $S $e/base-b12288.pcb "warmup" > /dev/null
for round in 1 2 3; do
  for v in base new; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
done
call_session_median $S .fbdata/bundles/v10-b16384-base.pcb "base b16384"
call_session_median $S $e/new-b16384.pcb "new b16384"
echo "v10 at $(( $(date +%s) - t0 )) s"
B=.fbdata/bundles
for v in base new; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v timeout 150 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'wall', j['wall_seconds'], 'rss GiB', j['max_rss_gib'], 'timings', json.dumps(j.get('timings')))" $OUT/$v/scale-out/one.json $v 2>/dev/null
  echo "fb $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/base/scale-out/one.json $OUT/new/scale-out/one.json <<'PY'
import json, sys
r = []
for p in sys.argv[1:]:
    try: r.append(json.load(open(p)).get("results"))
    except Exception as e: print("missing", p, e); r.append(None)
print("results new == base:", r[1] is not None and r[1] == r[0])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT base new 2>/dev/null; rm -rf $OUT/base $OUT/new
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
