#!/usr/bin/env bash
# The folded embedding's state words and table-row indices shared by a row's
# threads (one atom a thread, the rows by shuffle) against the compiler of
# f88664a (-old): outcomes byte-identical, session bench in two interleaved
# rounds, Nsight Compute's per-launch times at B=4096.
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
for bun in v10-b4096 v10-b4096-old v10-b1024 v10-b1024-old v10-b256 v10-b256-old; do
  $r $d/sw/$bun.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes $OUT/out-$bun.tsv > $OUT/run-$bun.log 2>&1 || { echo "run $bun failed"; tail -3 $OUT/run-$bun.log; }
done
$r $d/sw/v10-b256.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes $OUT/out-cpu.tsv > $OUT/run-cpu.log 2>&1 || echo "cpu run failed"
for B in 4096 1024 256; do
  cmp -s $OUT/out-v10-b$B.tsv $OUT/out-v10-b$B-old.tsv && echo "B=$B outcomes byte-identical to -old" || echo "B=$B outcomes DIFFER from -old"
done
python3 - $OUT <<'PY'
import sys, csv
o = sys.argv[1]
def load(n):
    rows = [r for r in csv.reader(open(f"{o}/{n}"), delimiter="\t") if r and not r[0].startswith("#")]
    h = rows[0]; i = {k: j for j, k in enumerate(h)}
    return {(r[i["query"]], r[i["mode"]], r[i["entity"]]): (r[i["status"]], r[i["depth"]]) for r in rows[1:]}
ref = load("out-cpu.tsv")
for n in ["out-v10-b4096.tsv", "out-v10-b256.tsv"]:
    got = load(n)
    same = sum(1 for k in ref if got.get(k) == ref[k])
    print(f"{n}: status and depth equal to the CPU host's on {same} of {len(ref)} candidates")
PY
echo "outcomes $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-old v10-b1024 v10-b1024-old v10-b256 v10-b256-old; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > $OUT/sb-$bun-$round.json 2> $OUT/sb-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $OUT/sb-$bun-$round.json "r$round $bun" || tail -2 $OUT/sb-$bun-$round.err
  done
done
echo "bench $(( $(date +%s) - t0 )) s"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
for v in v10-b4096 v10-b4096-old; do
  timeout 150 $N --metrics gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts.sum -k regex:'^proofc_(policy|advance_engine)$' --csv $r $d/sw/$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $OUT/ncu-$v.csv 2> $OUT/ncu-$v.err || echo "ncu $v failed"
done
python3 - $OUT <<'PY'
import csv, sys, collections
o = sys.argv[1]
for v in ["v10-b4096", "v10-b4096-old"]:
    rows = [r for r in csv.reader(l for l in open(f"{o}/ncu-{v}.csv") if l.startswith('"'))]
    h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value")
    s = collections.defaultdict(float)
    for r in rows[1:]:
        s[(r[ki][:20], r[mi])] += float(r[vi].replace(",", ""))
    for (k, m), x in sorted(s.items()):
        print(v, k, m, "%.4g" % x)
PY
echo "done $(( $(date +%s) - t0 )) s"
