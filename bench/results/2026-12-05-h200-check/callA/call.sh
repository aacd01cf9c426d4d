#!/usr/bin/env bash
# Call A: scripts/gpu-check.sh on 090a98e, the first GPU run of f032a47,
# 66f3ff6 and the host rollouts' RowTable (c6c2852) against GpuRollouts;
# the suites' logs come back in one archive. Then, in the time left,
# `proofc train --variant il --device cuda` on kinship (20 updates), the
# imitation variant's first GPU run.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
R=/tmp/chk; rm -rf $R; mkdir -p $R
OUT=$R/check JOBS=16 timeout 500 scripts/gpu-check.sh > $R/gpu-check.txt 2>&1
echo "gpu-check rc=$? at $(( $(date +%s) - t0 )) s"
tail -40 $R/gpu-check.txt
tar -czf "$OUT/check.tar.gz" -C /tmp chk
left=$(( 585 - ($(date +%s) - t0) ))
[ $left -gt 40 ] || exit 0
N=build-gpu-device
call_build $N proofc_python || exit 1
left=$(( 585 - ($(date +%s) - t0) ))
PYTHONPATH=$N/python:$PWD PROOFC_BIN_DIR=$N/bin timeout $left python3 -m proofc.training \
  .gpudata/bundles/v10-b4096.pcb --data .gpudata/data/kinship \
  -o /tmp/x-kinship.safetensors --updates 20 --variant il --device cuda \
  --log $OUT/train-il-kinship.json --no-progress > $OUT/train-il-kinship.log 2>&1
echo "train il kinship rc=$? at $(( $(date +%s) - t0 )) s"
tail -8 $OUT/train-il-kinship.log
