#!/usr/bin/env bash
# After the fold: V10's B and policy blocks per SM (two interleaved rounds, session bench),
# then Nsight Compute: every launch's time at B=4096 (fold and nofold), --set full on one
# mid-run policy and advance-engine launch (fold).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt; cat $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-nofold v10-b4096-m21 v10-b4096-m24 v10-b4096-m28 v10-b4096-m32 v10-b3072 v10-b6144 v10-b6144-m24 v10-b8192 v10-b256; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > $OUT/sb-$bun-$round.json 2> $OUT/sb-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $OUT/sb-$bun-$round.json "r$round $bun" || tail -2 $OUT/sb-$bun-$round.err
  done
done
echo "sweep done $(( $(date +%s) - t0 )) s"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
echo "ncu: $N"
for v in b4096 b4096-nofold; do
  timeout 200 $N --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second --csv $r $d/sw/v10-$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet --report $OUT/ncu-run-$v.json > $OUT/ncu-times-$v.csv 2> $OUT/ncu-times-$v.err || { echo "ncu times $v failed"; tail -5 $OUT/ncu-times-$v.err; }
  echo "ncu times $v $(( $(date +%s) - t0 )) s"
done
for k in proofc_policy proofc_advance_engine; do
  timeout 200 $N --set full -k regex:"^$k\$" --launch-skip 5 --launch-count 1 -o $OUT/full-$k $r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $OUT/full-$k.log 2>&1 || { echo "ncu full $k failed"; tail -5 $OUT/full-$k.log; }
  $N --import $OUT/full-$k.ncu-rep --print-summary none > $OUT/full-$k.txt 2>&1
  $N --import $OUT/full-$k.ncu-rep --page source --csv --print-source sass > $OUT/sass-$k.csv 2>/dev/null
  python3 bench/proto/ncu_chunks.py $OUT/sass-$k.csv --kernel $k > $OUT/chunks-$k.txt 2>&1
  gzip -f $OUT/sass-$k.csv
  echo "ncu full $k $(( $(date +%s) - t0 )) s"
done
python3 - $OUT <<'PY'
import csv, sys, collections
o = sys.argv[1]
for v in ["b4096", "b4096-nofold"]:
    try:
        rows = [r for r in csv.reader(open(f"{o}/ncu-times-{v}.csv")) if len(r) > 10]
    except OSError:
        continue
    h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
    t = collections.OrderedDict()
    for r in rows[1:]:
        if r[mi] == "gpu__time_duration.sum":
            t[int(r[ii])] = (r[ki], float(r[vi].replace(",", "")))
    by = collections.defaultdict(float); n = collections.Counter()
    for k, (name, ns) in t.items():
        by[name] += ns; n[name] += 1
    tot = sum(by.values())
    print(v, "launches", len(t), "sum %.3f ms" % (tot / 1e6))
    for name in by:
        print("  %-28s %3d launches %.3f ms (%.0f %%)" % (name, n[name], by[name] / 1e6, 100 * by[name] / tot))
PY
echo "done $(( $(date +%s) - t0 )) s"
