#!/usr/bin/env bash
# Call F: the compile knobs again after row 38, at B = 4096 and 8192: the
# auto choices ("def") against --engine-threads 64, --memo-max-waits 1 and
# 3, --min-blocks-per-sm 18 and 24, --engine-max-registers 96 (bundles in
# .gpudata/kn, compiled here by the tree's proofc). Outcomes of each
# byte-identical to its B's "def"; the session bench, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
K="def et64 w1 w3 m18 m24 r96"
for B in 4096 8192; do
  for v in $K; do
    $N/bin/proofc-run $d/kn/b$B-$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$B-$v.tsv > /tmp/run.log 2>&1 || { echo "run $B $v failed"; tail -3 /tmp/run.log; }
    cmp -s /tmp/out-$B-$v.tsv /tmp/out-$B-def.tsv || echo "B=$B $v outcomes DIFFER"
  done
done
echo "outcomes checked $(( $(date +%s) - t0 )) s"
sb() { timeout 60 $N/bin/proofc-session-bench $d/kn/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do for B in 4096 8192; do for v in $K; do sb b$B-$v "r$round"; done; done; done
echo "done $(( $(date +%s) - t0 )) s"
