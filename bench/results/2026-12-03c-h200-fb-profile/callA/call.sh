#!/usr/bin/env bash
# Call A: where fb15k-237's GPU run goes now (not profiled since rows
# 27-28), on e9ec923's bundle (V10's program at B = 16384, fb15k-237's
# seed-0 random weights; its fold table is over the budget, so the
# policy runs the unfolded embedding under the fold's choices: 20 blocks
# an SM, one k-step in flight). (1) The first 1000 test queries, every
# filtered corruption (bench/scale-out/run.sh one, QUERIES=1000) with
# that bundle and with --min-blocks-per-sm 16, 18, 24 and
# --no-atom-layer-table (the unfolded form's own choices), two rounds
# interleaved, results compared. (2) A CUPTI timeline of the first 5
# queries (proofc-run, one block): each kernel's launches summed.
# (3) Nsight Compute --set full on a full step's policy launch and
# advance-engine launch (--cond host). (4) clock_policy.py's tile chain
# on a sample of every launch's blocks (STRIDE 61) of the first 5
# queries.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
B=.fbdata/bundles
cp $B/v10-b16384.pcb $B/v10-b16384-base.pcb
for round in 1 2; do
  for v in base mb16 mb18 mb24 nofold; do
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
echo "swept at $(( $(date +%s) - t0 )) s"
cp $B/v10-b16384-base.pcb $B/v10-b16384.pcb
r=$N/bin/proofc-run
W="--data .fbdata/data/fb15k-237 --weights .fbdata/weights/fb15k-237-random.safetensors --split test --queries 5 --corruptions 0 --device cuda --quiet"
$r $B/v10-b16384.pcb $W --outcomes /tmp/ref5.tsv > /dev/null 2>&1 || echo "q5 run failed"
call_timeline_lib /tmp/kt.so
CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv timeout 60 $r $B/v10-b16384.pcb $W > /dev/null 2>&1 || echo "traced failed"
python3 bench/proto/timeline_runs.py /tmp/tl.csv q5 2>&1 | tail -5
python3 - /tmp/tl.csv <<'PY'
import csv, collections, sys
k = [(int(r[1]), int(r[2]), r[4]) for r in csv.reader(open(sys.argv[1])) if len(r) >= 5 and r[0] == "kernel"]
k.sort()
tot = collections.defaultdict(lambda: [0, 0])
for s, e, n in k:
    tot[n][0] += e - s; tot[n][1] += 1
span = (k[-1][1] - k[0][0]) / 1e3
busy = sum(v[0] for v in tot.values()) / 1e3
print(f"span {span:.0f} us, kernels busy {busy:.0f} us")
for n, (t, c) in sorted(tot.items(), key=lambda x: -x[1][0]):
    print(f"  {n[:40]:40} {t / 1e3:10.0f} us {c:6} launches {100 * t / 1e3 / busy:5.1f} %")
PY
gzip -c /tmp/tl.csv > $OUT/timeline-q5.csv.gz
echo "traced at $(( $(date +%s) - t0 )) s"
NC=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
for spec in "policy 12" "advance_engine 12"; do
  set -- $spec
  timeout 150 $NC --set full --import-source no -k regex:"^proofc_$1\$" --launch-skip $2 --launch-count 1 -o /tmp/full $r $B/v10-b16384.pcb $W --cond host > /tmp/full.log 2>&1 || { echo "full $1 $2 failed"; tail -3 /tmp/full.log; continue; }
  $NC --import /tmp/full.ncu-rep --print-summary none > $OUT/full-$1-$2.txt 2>&1
  $NC --import /tmp/full.ncu-rep --page source --csv --print-source sass > $OUT/sass-$1-$2.csv 2>/dev/null
  gzip -f $OUT/sass-$1-$2.csv
  rm -f /tmp/full.ncu-rep
  grep -E "^  proofc|Duration|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|No Eligible|L1/TEX Hit|L2 Hit|L1/TEX Cache Throughput|L2 Cache Throughput|Local Memory Spilling Requests  " $OUT/full-$1-$2.txt | head -24
done
echo "profiled at $(( $(date +%s) - t0 )) s"
$r $B/v10-b16384-clock.pcb $W --outcomes /tmp/clk5.tsv > $OUT/clock.txt 2>&1 || { echo "clock run failed"; tail -3 $OUT/clock.txt; }
cmp -s /tmp/clk5.tsv /tmp/ref5.tsv && echo "clock outcomes byte-identical" || echo "clock outcomes DIFFER"
python3 bench/proto/clock_policy.py --summary $OUT/clock.txt
gzip -f $OUT/clock.txt
echo "all $(( $(date +%s) - t0 )) s"
