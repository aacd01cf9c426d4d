#!/usr/bin/env bash
# The folded rows at 8 features a thread in the prototype's configuration
# (18 blocks an SM, two tensor-core k-steps in flight), V10 at B=4096:
# a0 the tree (21 blocks, one k-step), a1 the tree at 18 blocks, a4 the tree
# at 18 blocks and two k-steps (chooseStepsInFlight patched to 2), a2 a4 with
# folded-rows-f8.patch, a3 a1 with it, a5 the tree with it (call C's).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $R/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for v in a0 a1 a2 a3 a4 a5; do
  $r $d/sw/$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o-$v.tsv > $R/run-$v.log 2>&1 || echo "run $v failed"
  cmp -s /tmp/o-a0.tsv /tmp/o-$v.tsv && echo "$v: outcomes = a0's" || echo "$v: OUTCOMES DIFFER"
done
for round in 1 2; do
  for v in a0 a1 a2 a3 a4 a5; do
    timeout 60 $b $d/sw/$v.pcb $W --calls 15 > $R/sb-$v-$round.json 2> $R/sb-$v-$round.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" $R/sb-$v-$round.json "r$round $v" || tail -2 $R/sb-$v-$round.err
  done
done
echo "done $(( $(date +%s) - t0 )) s"
