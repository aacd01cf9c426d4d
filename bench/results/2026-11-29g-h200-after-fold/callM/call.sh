#!/usr/bin/env bash
# The fold_atom_layer device kernel with 8 independent sums a thread: every GPU test, V10's outcomes
# against the CPU host's, the Session call (device and host weights), the fold kernel's time (ncu).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT/r; mkdir -p $R
nvidia-smi -L | tee $R/gpu.txt
t0=$(date +%s)
OUT=$R/check JOBS=16 scripts/gpu-check.sh > $R/gpu-check.txt 2>&1; echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s"
tail -4 $R/gpu-check.txt
JOBS=16 scripts/gpu-build.sh $R/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
$r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/g.tsv > $R/run-gpu.log 2>&1 || echo "gpu run failed"
$r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/c.tsv > $R/run-cpu.log 2>&1 || echo "cpu run failed"
python3 - <<'PY'
import csv
def load(n):
    rows = list(csv.reader(open(n), delimiter="\t")); return rows[0], rows[1:]
gh, g = load("/tmp/g.tsv"); ch, c = load("/tmp/c.tsv")
same = sum(1 for a, b in zip(g, c) if a[gh.index("status")] == b[ch.index("status")] and a[gh.index("depth")] == b[ch.index("depth")])
print("V10 B=4096 GPU vs CPU host: status+depth agree on", same, "of", len(g))
PY
for round in 1 2; do
  for B in 4096 256; do
    for w in device host; do
      timeout 60 $b $d/sw/v10-b$B.pcb $W --calls 30 --weights-on $w > $R/sb-$B-$w-$round.json 2> $R/sb-$B-$w-$round.err
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'call %.3f run %.3f ms first %.1f ms' % (j['median_call_ms'], j['median_run_ms'], j['first_call_ms']))" $R/sb-$B-$w-$round.json "r$round B=$B weights-on $w" || tail -2 $R/sb-$B-$w-$round.err
    done
  done
done
N=/usr/local/cuda/bin/ncu
timeout 100 $N --metrics gpu__time_duration.sum --csv -k regex:prologue $r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $R/ncu-prologue.csv 2> $R/ncu-prologue.err || tail -5 $R/ncu-prologue.err
python3 - $R/ncu-prologue.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value")
for r in rows[1:]: print("ncu (1.36 GHz)", r[ki], "%.1f us" % (float(r[vi].replace(",", "")) / 1e3))
PY
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
