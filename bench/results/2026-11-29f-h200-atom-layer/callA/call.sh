#!/usr/bin/env bash
# Folded atom layer: GPU tests, then V10 A/B (fold vs --no-atom-layer-table) in one call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt
t0=$(date +%s)
OUT=$OUT/check scripts/gpu-check.sh > $OUT/gpu-check.txt 2>&1; echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s"
tail -5 $OUT/gpu-check.txt
scripts/gpu-build.sh $OUT/build2.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build2.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pcache
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
for B in 256 4096; do
  for v in fold nofold; do
    bun=$d/bundles/v10-b$B.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b$B-nofold.pcb
    $r $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet --report $OUT/run-b$B-$v.json --outcomes $OUT/out-b$B-$v.tsv > $OUT/run-b$B-$v.log 2>&1 || echo "run $B $v failed"
  done
done
$r $d/bundles/v10-b256.pcb --data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 100 --corruptions 100 --device cpu --quiet --report $OUT/run-cpu.json --outcomes $OUT/out-cpu.tsv > $OUT/run-cpu.log 2>&1 || echo "cpu run failed"
python3 - $OUT <<'PY'
import sys, csv
o = sys.argv[1]
def load(n):
    rows = list(csv.reader(open(f"{o}/{n}"), delimiter="\t"))
    h = rows[0]; return h, rows[1:]
ref_h, ref = load("out-cpu.tsv")
for n in ["out-b256-fold.tsv", "out-b4096-fold.tsv", "out-b256-nofold.tsv", "out-b4096-nofold.tsv"]:
    h, rows = load(n)
    si, di = h.index("status"), h.index("depth")
    rsi, rdi = ref_h.index("status"), ref_h.index("depth")
    same = sum(1 for a, b in zip(rows, ref) if a[si] == b[rsi] and a[di] == b[rdi])
    print(n, "vs cpu: status+depth agree", same, "of", len(rows), "%.4f%%" % (100.0 * same / len(rows)))
for a, b in [("out-b256-fold.tsv", "out-b4096-fold.tsv"), ("out-b256-nofold.tsv", "out-b4096-nofold.tsv"), ("out-b4096-fold.tsv", "out-b4096-nofold.tsv")]:
    print(a, b, "byte-identical" if open(f"{o}/{a}").read() == open(f"{o}/{b}").read() else "DIFFER")
PY
for f in $OUT/run-*.json; do python3 -c "import json,sys; j=json.load(open(sys.argv[1])); m=j.get('metrics',j); print(sys.argv[1].split('/')[-1], {k: m[k] for k in m if k in ('mrr','hits@1','hits@10','proved')} if isinstance(m,dict) else '')" $f; done
for round in 1 2; do
  for B in 4096 256; do
    for v in fold nofold; do
      bun=$d/bundles/v10-b$B.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b$B-nofold.pcb
      $b $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --calls 30 > $OUT/sb-b$B-$v-r$round.json 2> $OUT/sb-b$B-$v-r$round.err
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'B', sys.argv[3], sys.argv[4], 'call %.3f run %.3f ms' % (j['median_call_ms'], j['median_run_ms']), 'mrr', j['calls'][0]['mrr'], 'compile', j.get('compile_cold_s', j.get('modules_seconds')))" $OUT/sb-b$B-$v-r$round.json r$round $B $v
    done
  done
done
echo "done $(( $(date +%s) - t0 )) s"
