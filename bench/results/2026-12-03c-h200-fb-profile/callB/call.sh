#!/usr/bin/env bash
# Call B: is the policy tile's arrival (lane 0's atom.release.gpu add on
# the slot's tile counter, the last tile selecting) what call A's clock
# counters say, half of a full step's tile lifetime (arrive 65 k cycles
# at the median against 1.4 k in partly loaded launches)? The same
# bundles with that add relaxed (`relaxed`: atom.relaxed.gpu, the PTX
# patched, no release fence; a timing experiment, not a correct
# protocol) against e9ec923's (`base`): fb15k-237's first 1000 queries
# two rounds interleaved; V10 at B = 12288 session bench, three rounds,
# and outcomes; the clock counters of `relaxed` on fb15k-237's first 5
# queries; Nsight Compute's stall reasons on base's full-step launch.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
B=.fbdata/bundles
e=.gpudata/exp
call_reference $e/base-b12288.pcb
call_outcomes relaxed-b12288 $e/relaxed-b12288.pcb
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for v in base relaxed; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
done
echo "v10 at $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  for v in base relaxed; do
    cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
    QUERIES=1000 OUT=$OUT/$v-$round timeout 40 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'wall %.3f run %.3f setup %.3f readback %.3f compile %.3f' % (j['wall_seconds'], t['run_seconds'], t['setup_seconds'], t['readback_seconds'], t['compile_seconds']))" $OUT/$v-$round/scale-out/one.json "r$round $v" 2>/dev/null
  done
done
python3 - $OUT/*-2/scale-out/one.json <<'PY'
import json, sys
r = {}
for p in sys.argv[1:]:
    try: r[p.split("/")[-3]] = json.load(open(p)).get("results")
    except Exception as e: print("missing", p, e)
print("results equal to base's:", {k: v == r.get("base-2") for k, v in r.items()})
PY
rm -rf $OUT/*-[12]/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/q1000.tar.gz -C $OUT $(cd $OUT && ls -d *-[12]) 2>/dev/null; rm -rf $OUT/*-[12]
echo "fb at $(( $(date +%s) - t0 )) s"
r=$N/bin/proofc-run
W="--data .fbdata/data/fb15k-237 --weights .fbdata/weights/fb15k-237-random.safetensors --split test --queries 5 --corruptions 0 --device cuda --quiet"
$r $B/v10-b16384-base.pcb $W --outcomes /tmp/ref5.tsv > /dev/null 2>&1 || echo "q5 run failed"
for v in clock relclock; do
  s=$(date +%s.%N)
  $r $B/v10-b16384-$v.pcb $W --outcomes /tmp/$v.tsv > $OUT/$v.txt 2>&1 || { echo "$v run failed"; tail -3 $OUT/$v.txt; }
  echo "$v run $(python3 -c "import sys; print('%.2f s' % ($(date +%s.%N) - $s))")"
  cmp -s /tmp/$v.tsv /tmp/ref5.tsv && echo "$v outcomes byte-identical" || echo "$v outcomes DIFFER"
  python3 bench/proto/clock_policy.py --summary $OUT/$v.txt | tail -8
done
for v in base relaxed; do
  s=$(date +%s.%N)
  $r $B/v10-b16384-$v.pcb $W --outcomes /tmp/$v.tsv > /dev/null 2>&1
  echo "$v q5 run $(python3 -c "import sys; print('%.2f s' % ($(date +%s.%N) - $s))")"
done
gzip -f $OUT/clock.txt $OUT/relclock.txt
NC=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
timeout 150 $NC --set full --import-source no -k regex:'^proofc_policy$' --launch-skip 12 --launch-count 1 -o /tmp/full $r $B/v10-b16384-base.pcb $W --cond host > /tmp/full.log 2>&1 || { echo "ncu failed"; tail -3 /tmp/full.log; }
$NC --import /tmp/full.ncu-rep --page raw --csv > /tmp/raw.csv 2>/dev/null
python3 - /tmp/raw.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, units, vals = rows[0], rows[1], rows[2]
for h, u, v in zip(hdr, units, vals):
    if "issue_stalled" in h or "membar" in h:
        try: x = float(v.replace(",", ""))
        except ValueError: continue
        if x > 0.01: print(f"{h:90} {v} {u}")
PY
$NC --import /tmp/full.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>/dev/null
python3 - /tmp/sass.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
print([x for x in h][:40])
PY
gzip -c /tmp/sass.csv > $OUT/sass-policy.csv.gz
echo "all $(( $(date +%s) - t0 )) s"
