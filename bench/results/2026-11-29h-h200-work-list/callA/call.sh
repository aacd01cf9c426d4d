#!/usr/bin/env bash
# Row 34: the step policy kernel takes its (slot, part) tiles from a work list
# the engine kernels append to (blocks that fit on the SMs) instead of B x parts
# blocks. GPU tests, then outcomes and session-bench times of the same compiler
# with and without the list (`-grid`: --no-policy-work-list) in one call.
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
for bun in v10-b4096 v10-b4096-grid v10-b1024 v10-b1024-grid v10-b256s v10-b256s-grid v10-b256; do
  $r $d/sw/$bun.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o-$bun.tsv > $R/run-$bun.log 2>&1 || echo "run $bun failed"
done
for bun in v10-b4096-grid v10-b1024 v10-b1024-grid v10-b256s v10-b256s-grid v10-b256; do
  cmp -s /tmp/o-v10-b4096.tsv /tmp/o-$bun.tsv && echo "v10-b4096 = $bun ($(wc -l < /tmp/o-$bun.tsv) lines)" || echo "v10-b4096 != $bun: OUTCOMES DIFFER"
done
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
print("v10-b4096 (list) status+depth equal to the CPU host's: %d of %d (gpu %d)" % (same, len(h), len(g)))
PY
for bun in v10-b4096 v10-b4096-grid; do
  $r $d/sw/$bun.pcb $U --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/u-$bun.tsv > $R/run-umls-$bun.log 2>&1 || echo "umls $bun failed"
done
cmp -s /tmp/u-v10-b4096.tsv /tmp/u-v10-b4096-grid.tsv && echo "umls: list = grid ($(wc -l < /tmp/u-v10-b4096.tsv) lines)" || echo "umls: OUTCOMES DIFFER"
echo "outcomes $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-grid v10-b1024 v10-b1024-grid v10-b256s v10-b256s-grid v10-b256; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > $R/sb-$bun-$round.json 2> $R/sb-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-$bun-$round.json "r$round $bun" || tail -2 $R/sb-$bun-$round.err
  done
  for bun in v10-b4096 v10-b4096-grid; do
    timeout 60 $b $d/sw/$bun.pcb $U --calls 15 > $R/sb-umls-$bun-$round.json 2> $R/sb-umls-$bun-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-umls-$bun-$round.json "r$round umls $bun" || tail -2 $R/sb-umls-$bun-$round.err
  done
done
echo "timed $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
