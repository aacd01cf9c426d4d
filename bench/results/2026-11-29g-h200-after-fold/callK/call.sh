#!/usr/bin/env bash
# Row 32: the policy's k-steps in flight from its register cap, 21 blocks an SM from B = 4096.
# GPU tests, then new vs old compiler (same sources otherwise) in one call: outcomes, V10 fold /
# nofold / B=1024, umls (table over budget: the unfolded path of a fold kernel), fb15k-237 q700,
# then every launch's time by Nsight Compute at B=4096 (the breakdown after the change).
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
U="--data $d/data/umls --weights $d/weights/umls.safetensors"
for bun in v10-b4096 v10-b1024 v10-b4096-nofold; do
  for v in "" -old; do
    $r $d/sw/$bun$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o$v.tsv > $R/run-$bun$v.log 2>&1 || echo "run $bun$v failed"
  done
  cmp -s /tmp/o.tsv /tmp/o-old.tsv && echo "$bun: outcomes identical to the old compiler's ($(wc -l < /tmp/o.tsv) lines)" || echo "$bun: OUTCOMES DIFFER"
done
for v in "" -old; do $r $d/sw/v10-b4096$v.pcb $U --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/u$v.tsv > $R/run-umls$v.log 2>&1 || echo "umls $v failed"; done
cmp -s /tmp/u.tsv /tmp/u-old.tsv && echo "umls: outcomes identical ($(wc -l < /tmp/u.tsv) lines)" || echo "umls: OUTCOMES DIFFER"
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-old v10-b4096-nofold v10-b4096-nofold-old v10-b1024 v10-b1024-old; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > $R/sb-$bun-$round.json 2> $R/sb-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-$bun-$round.json "r$round $bun" || tail -2 $R/sb-$bun-$round.err
  done
  for v in "" -old; do
    timeout 60 $b $d/sw/v10-b4096$v.pcb $U --calls 15 > $R/sb-umls$v-$round.json 2> $R/sb-umls$v-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-umls$v-$round.json "r$round umls-b4096$v" || tail -2 $R/sb-umls$v-$round.err
  done
done
if [ -d .fbdata ]; then
f=.fbdata
for v in "" -old; do
  $r $f/bundles/v10-b16384$v.pcb --data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --queries 60 --corruptions 0 --device cuda --quiet --outcomes /tmp/f$v.tsv > /dev/null 2>&1 || echo "fb $v failed"
done
cmp -s /tmp/f.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries: outcomes identical ($(wc -l < /tmp/f.tsv) lines)" || echo "fb15k-237: OUTCOMES DIFFER"
for round in 1 2; do
  for v in "" -old; do
    $r $f/bundles/v10-b16384$v.pcb --data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --queries 700 --corruptions 0 --device cuda --quiet --report $R/q700$v-$round.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" $R/q700$v-$round.json "r$round fb15k-237 q700 b16384$v"
  done
done
fi
echo "timed $(( $(date +%s) - t0 )) s"
N=/usr/local/cuda/bin/ncu
for v in "" -old; do
  timeout 100 $N --metrics gpu__time_duration.sum --csv $r $d/sw/v10-b4096$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $R/ncu-times$v.csv 2> $R/ncu-times$v.err || tail -5 $R/ncu-times$v.err
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
tar czf $OUT/r.tgz -C $OUT r --exclude='*.ncu-rep'
echo "done $(( $(date +%s) - t0 )) s"
