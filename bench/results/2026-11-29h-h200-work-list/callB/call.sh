#!/usr/bin/env bash
# Row 34 (not kept): every launch's time by Nsight Compute (clocks locked at
# 1.36 GHz, host-driven steps) of V10 at B=4096 with the work list and without
# (`-grid`), to see which steps the list made slower.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $R/build.log proofc-run > /dev/null 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
N=/usr/local/cuda/bin/ncu
for v in "" -grid; do
  timeout 150 $N --metrics gpu__time_duration.sum --csv $r $d/sw/v10-b4096$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $R/ncu-times$v.csv 2> $R/ncu-times$v.err || tail -5 $R/ncu-times$v.err
  python3 - $R/ncu-times$v.csv "b4096$v" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value")
steps = []; pol = None
for r in rows[1:]:
    name, ns = r[ki], float(r[vi].replace(",", ""))
    if name == "proofc_policy": pol = ns
    elif name == "proofc_advance_engine": steps.append((pol, ns)); pol = None
full = [s for s in steps[:20]]; tail = steps[20:]
f = lambda xs, i: sum(x[i] for x in xs) / 1e6
print(sys.argv[2], "steps", len(steps), "policy %.3f ms (steps 1-20 %.3f, 21- %.3f), advance-engine %.3f ms (%.3f, %.3f)" % (f(steps, 0), f(full, 0), f(tail, 0), f(steps, 1), f(full, 1), f(tail, 1)))
print(" ".join("%d:%.0f/%.0f" % (i, p / 1e3, a / 1e3) for i, (p, a) in enumerate(steps, 1)))
PY
done
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
