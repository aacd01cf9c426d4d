#!/usr/bin/env bash
# Call E: call D again with every block of a small launch printing (call
# D printed only the blocks that reached the arrival, and no launch of at
# most 40 blocks printed: the tail's small launches did not reach it, or
# are larger than thought). bench/proto/clock_policy.py as committed: each
# block's cycles from the entry to the end of the embedding, of the
# layers, to the arrival and to the return (-1: not reached); launches of
# at most 4 and of at most 2000 blocks. V10 at B=8192, the landed kernels.
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
for g in 4 2000; do
  $N/bin/proofc-run $d/clk/v10-b8192-clk$g.pcb $W $Q --quiet --outcomes /tmp/o$g.tsv > $OUT/clk$g.txt 2>&1 || { echo "clk$g failed"; tail -3 $OUT/clk$g.txt; }
  cmp -s /tmp/o.tsv /tmp/o$g.tsv && echo "clk$g outcomes byte-identical to the unpatched bundle's" || echo "clk$g outcomes DIFFER"
  python3 - $OUT/clk$g.txt <<'PY'
import collections, re, sys
rows = [tuple(map(int, m.groups())) for m in re.finditer(r"CLKTILE (\d+) of (\d+): embedded (-?\d+) layered (-?\d+) arriving (-?\d+) end (-?\d+)", open(sys.argv[1]).read())]
print(f"{len(rows)} blocks printed; launches by grid: {sorted(collections.Counter(r[1] for r in rows).items())[:30]}")
def q(v):
    v = sorted(v); n = len(v)
    return f"{v[n // 4]:>6} {v[n // 2]:>6} {v[(3 * n) // 4]:>6} max {v[-1]:>6}" if n else "-"
for lo, hi in ((1, 4), (5, 40), (41, 400), (401, 2000)):
    sel = [r for r in rows if lo <= r[1] <= hi]
    if not sel: continue
    busy = [r for r in sel if r[2] >= 0 and r[5] >= 0]
    print(f"grid {lo}-{hi}: {len(sel)} blocks, {len(busy)} embedded (quartiles, max; cycles)")
    print(f"  no rows, entry to return {q([r[5] for r in sel if r[2] < 0])}")
    if busy:
        print(f"  embed   {q([r[2] for r in busy])}")
        print(f"  layers  {q([r[3] - r[2] for r in busy if r[3] >= 0])}")
        print(f"  dot     {q([r[4] - r[3] for r in busy if r[3] >= 0 and r[4] >= 0])}")
        print(f"  arrive  {q([r[5] - r[4] for r in busy if r[4] >= 0])}")
        print(f"  total   {q([r[5] for r in busy])}")
PY
done
echo "all $(( $(date +%s) - t0 )) s"
