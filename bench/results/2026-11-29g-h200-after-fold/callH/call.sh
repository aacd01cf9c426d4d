#!/usr/bin/env bash
# After the fold: memo waits and the advance-engine's knobs at B=4096 (two rounds), then
# every launch's time by Nsight Compute at B=4096 (clocks locked), all packed in one tar.
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
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-w0 v10-b4096-w1 v10-b4096-w3 v10-b4096-w4 v10-b4096-et64 v10-b4096-er0 v10-b4096-er96 v10-b6144-w3; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > $R/sb-$bun-$round.json 2> $R/sb-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-$bun-$round.json "r$round $bun" || tail -2 $R/sb-$bun-$round.err
  done
done
N=/usr/local/cuda/bin/ncu
timeout 200 $N --metrics gpu__time_duration.sum --csv $r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $R/ncu-times.csv 2> $R/ncu-times.err || tail -5 $R/ncu-times.err
python3 - $R/ncu-times.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ii = h.index("ID")
steps = []; pol = None
for r in rows[1:]:
    name, ns = r[ki], float(r[vi].replace(",", ""))
    if name == "proofc_policy": pol = ns
    elif name == "proofc_advance_engine": steps.append((pol, ns)); pol = None
print("step policy_us advance_us")
for i, (p, a) in enumerate(steps, 1): print(i, round(p / 1e3, 1), round(a / 1e3, 1))
PY
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
