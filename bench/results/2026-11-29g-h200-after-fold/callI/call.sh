#!/usr/bin/env bash
# Experiment: the step policy kernel's blocks each loop over L of their slot's parts (grid B x ceil(8/L)).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT/r; mkdir -p $R
nvidia-smi -L | tee $R/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $R/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for bun in v10-b4096 v10-b4096-L2 v10-b4096-L4 v10-b4096-L8 v10-b8192-L2; do
  $r $d/sw/$bun.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes $R/o-$bun.tsv > $R/run-$bun.log 2>&1 || { echo "run $bun failed"; tail -3 $R/run-$bun.log; }
  cmp -s $R/o-v10-b4096.tsv $R/o-$bun.tsv && echo "$bun outcomes identical" || echo "$bun OUTCOMES DIFFER"
done
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-L2 v10-b4096-L4 v10-b4096-L8 v10-b4096-g2 v10-b6144-L2 v10-b8192-L2 v10-b8192-L4; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > $R/sb-$bun-$round.json 2> $R/sb-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-$bun-$round.json "r$round $bun" || tail -2 $R/sb-$bun-$round.err
  done
done
N=/usr/local/cuda/bin/ncu
timeout 200 $N --metrics gpu__time_duration.sum --csv $r $d/sw/v10-b4096-L4.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $R/ncu-times.csv 2> $R/ncu-times.err || tail -5 $R/ncu-times.err
python3 - $R/ncu-times.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value")
steps = []; pol = None
for r in rows[1:]:
    name, ns = r[ki], float(r[vi].replace(",", ""))
    if name == "proofc_policy": pol = ns
    elif name == "proofc_advance_engine": steps.append((pol, ns)); pol = None
print("L4 policy sum %.3f ms, advance %.3f ms" % (sum(p for p, a in steps) / 1e6, sum(a for p, a in steps) / 1e6))
print(" ".join("%d:%.0f/%.0f" % (i, p / 1e3, a / 1e3) for i, (p, a) in enumerate(steps, 1)))
PY
rm -f $R/o-*.tsv
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
