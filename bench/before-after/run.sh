#!/usr/bin/env bash
# On the GPU machine (bench/before-after/README.md): builds proofc-run from
# .gpuold/old-src.tar.gz and from this tree, runs V10 at B=256/1024/4096 with
# each (its own bundles), compares the outcomes on their common columns, then
# runs the GPU unit tests (scripts/gpu-check.sh). Writes under $OUT if set.
set -uo pipefail
OUT=${OUT:-$PWD/.out}; mkdir -p "$OUT"
root=$PWD
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
scripts/unpack-carry.sh || exit 1 # .deps, .gpudata, .gpuold packed here
mkdir -p /tmp/old && tar -xzf .gpuold/old-src.tar.gz -C /tmp/old && cp -r .deps /tmp/old/.deps
( cd /tmp/old && PROOFC_GPU_BUILD_DIR=/tmp/old/build JOBS=6 scripts/gpu-build.sh $OUT/build-old.log proofc-run ) &
oldpid=$!
JOBS=10 scripts/gpu-build.sh $OUT/build-new.log proofc-unittests proofc-run proofc-merge; newrc=$?
wait $oldpid; oldrc=$?
echo "build new rc=$newrc old rc=$oldrc"
[ $newrc -eq 0 ] && [ $oldrc -eq 0 ] || exit 1
export PROOFC_CACHE_DIR=/tmp/pcache
d=.gpudata
for B in 256 1024 4096; do
  for v in old new; do
    if [ $v = old ]; then bin=/tmp/old/build/bin/proofc-run; bundle=.gpuold/bundles/v10-b$B.pcb
    else bin=build-gpu-device/bin/proofc-run; bundle=$d/bundles/v10-b$B.pcb; fi
    $bin $bundle --data $d/data/kinship --weights $d/weights/kinship.safetensors --split test \
      --queries 100 --corruptions 100 --seed 0 --facts train --device cuda --quiet \
      --outcomes /tmp/$v-$B.tsv --report /tmp/$v-$B.json > /tmp/$v-$B.log 2>&1 || { echo "$v B=$B failed"; cat /tmp/$v-$B.log; }
  done
done
/usr/bin/env python3 bench/before-after/compare_tsv.py /tmp/old-{256,1024,4096}.tsv /tmp/new-{256,1024,4096}.tsv 2>&1 | tee $OUT/compare.txt
for B in 256 1024 4096; do python3 -c "import json,sys;r=json.load(open('/tmp/new-$B.json'));o=json.load(open('/tmp/old-$B.json'));print('B=$B run_s old',o['timings']['run_seconds'],'new',r['timings']['run_seconds'],'mrr old',o['metrics']['both']['mrr'],'new',r['metrics']['both']['mrr'])"; done | tee -a $OUT/compare.txt
scripts/gpu-check.sh 2>&1 | tail -30
