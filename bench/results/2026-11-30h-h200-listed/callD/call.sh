#!/usr/bin/env bash
# Call D: what a lone policy tile's chain is made of, by clock counters in
# the generated policy kernel (bench/proto/clock_policy.py: %clock64 at the
# entry, after the embedding, after the layers, before the arrival and at
# the return; lane 0 of each block prints). V10 at B=8192, the landed
# kernels (.gpudata/sw/v10-b8192.pcb) patched twice: printing in launches
# of at most 4 blocks (the tail's lone tiles) and of at most 400. Outcomes
# against the unpatched bundle's; per part the median and quartiles of the
# cycles, by the launch's grid.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda"
$N/bin/proofc-run $d/sw/v10-b8192.pcb $W $Q --quiet --outcomes /tmp/o.tsv > /dev/null 2>&1 || echo "base run failed"
for g in 4 400; do
  $N/bin/proofc-run $d/clk/v10-b8192-clk$g.pcb $W $Q --quiet --outcomes /tmp/o$g.tsv > $OUT/clk$g.txt 2>&1 || { echo "clk$g failed"; tail -3 $OUT/clk$g.txt; }
  cmp -s /tmp/o.tsv /tmp/o$g.tsv && echo "clk$g outcomes byte-identical to the unpatched bundle's" || echo "clk$g outcomes DIFFER"
  grep -c CLKTILE $OUT/clk$g.txt
  python3 - $OUT/clk$g.txt <<'PY'
import re, sys, statistics as st
rows = [tuple(map(int, m.groups())) for m in re.finditer(r"CLKTILE (\d+) of (\d+): embed (\d+) layers (\d+) dot (\d+) arrive (\d+)", open(sys.argv[1]).read())]
def q(v):
    v = sorted(v); n = len(v)
    return f"{v[n // 4]:>6} {v[n // 2]:>6} {v[(3 * n) // 4]:>6}"
for lo, hi in ((1, 1), (2, 4), (5, 40), (41, 400)):
    sel = [r for r in rows if lo <= r[1] <= hi]
    if not sel: continue
    print(f"grid {lo}-{hi}: {len(sel)} tiles (quartiles, cycles)")
    for i, name in enumerate(("embed", "layers", "dot", "arrive"), start=2):
        print(f"  {name:7} {q([r[i] for r in sel])}")
    print(f"  total   {q([sum(r[2:]) for r in sel])}")
PY
done
echo "all $(( $(date +%s) - t0 )) s"
