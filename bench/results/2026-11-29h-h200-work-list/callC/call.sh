#!/usr/bin/env bash
# Row 34: the folded atom layer's rows embedded with 8 features a thread (8
# threads a row, 4 rows a warp's pass) instead of 4 (16 threads, 2 rows).
# GPU tests, then the new compiler against the old (`-old`, the same sources
# without the change) in one call: outcomes, session-bench times, and every
# launch's time by Nsight Compute at B=4096 (clocks locked at 1.36 GHz).
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
$r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/host.tsv > $R/run-host.log 2>&1 || echo "host run failed"
for bun in v10-b4096 v10-b1024 v10-b256s v10-b256; do
  for v in "" -old; do
    $r $d/sw/$bun$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o-$bun$v.tsv > $R/run-$bun$v.log 2>&1 || echo "run $bun$v failed"
  done
  cmp -s /tmp/o-$bun.tsv /tmp/o-$bun-old.tsv && echo "$bun: outcomes identical to the old compiler's ($(wc -l < /tmp/o-$bun.tsv) lines)" || echo "$bun: OUTCOMES DIFFER"
done
cmp -s /tmp/o-v10-b4096.tsv /tmp/o-v10-b256.tsv && echo "b4096 = b256" || echo "b4096 != b256"
python3 - /tmp/host.tsv /tmp/o-v10-b4096.tsv <<'PY'
import sys
def rows(p):
    out = {}
    for line in open(p):
        if line.startswith("#") or line.startswith("query"): continue
        f = line.rstrip("\n").split("\t")
        out[tuple(f[:3])] = f
    return out
h, g = rows(sys.argv[1]), rows(sys.argv[2])
hdr = [l for l in open(sys.argv[1]) if not l.startswith("#")][0].rstrip("\n").split("\t")
si, di = hdr.index("status"), hdr.index("depth")
same = sum(1 for k in h if k in g and h[k][si] == g[k][si] and h[k][di] == g[k][di])
print("v10-b4096 status+depth equal to the CPU host's: %d of %d (gpu %d)" % (same, len(h), len(g)))
PY
for v in "" -old; do
  $r $d/sw/v10-b4096$v.pcb $U --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/u$v.tsv > $R/run-umls$v.log 2>&1 || echo "umls $v failed"
done
cmp -s /tmp/u.tsv /tmp/u-old.tsv && echo "umls: outcomes identical ($(wc -l < /tmp/u.tsv) lines)" || echo "umls: OUTCOMES DIFFER"
echo "outcomes $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  for bun in v10-b4096 v10-b1024 v10-b256s v10-b256; do
    for v in "" -old; do
      timeout 60 $b $d/sw/$bun$v.pcb $W --calls 15 > $R/sb-$bun$v-$round.json 2> $R/sb-$bun$v-$round.err
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-$bun$v-$round.json "r$round $bun$v" || tail -2 $R/sb-$bun$v-$round.err
    done
  done
  for v in "" -old; do
    timeout 60 $b $d/sw/v10-b4096$v.pcb $U --calls 15 > $R/sb-umls$v-$round.json 2> $R/sb-umls$v-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-umls$v-$round.json "r$round umls-b4096$v" || tail -2 $R/sb-umls$v-$round.err
  done
done
echo "timed $(( $(date +%s) - t0 )) s"
N=/usr/local/cuda/bin/ncu
for v in "" -old; do
  timeout 150 $N --metrics gpu__time_duration.sum --csv $r $d/sw/v10-b4096$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $R/ncu-times$v.csv 2> $R/ncu-times$v.err || tail -5 $R/ncu-times$v.err
  python3 - $R/ncu-times$v.csv "b4096$v" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value")
steps = []; pol = None; other = {}
for r in rows[1:]:
    name, ns = r[ki], float(r[vi].replace(",", ""))
    if name == "proofc_policy": pol = ns
    elif name == "proofc_advance_engine": steps.append((pol, ns)); pol = None
    else: other[name] = other.get(name, 0) + ns
full = [s for s in steps[:20]]; tail = steps[20:]
f = lambda xs, i: sum(x[i] for x in xs) / 1e6
print(sys.argv[2], "steps", len(steps), "policy %.3f ms (steps 1-20 %.3f, 21- %.3f), advance-engine %.3f ms (%.3f, %.3f)" % (f(steps, 0), f(full, 0), f(tail, 0), f(steps, 1), f(full, 1), f(tail, 1)))
print(" ".join("%s %.3f ms" % (k, v / 1e6) for k, v in other.items()))
print(" ".join("%d:%.0f/%.0f" % (i, p / 1e3, a / 1e3) for i, (p, a) in enumerate(steps, 1)))
PY
done
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
