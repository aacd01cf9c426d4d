#!/usr/bin/env bash
# Call B: `proofc train --variant il --device cuda` (the imitation
# variant's first GPU run, 20 updates, kinship and family), then
# fb15k-237's whole split twice, cold, results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc_python proofc-unittests || exit 1
$N/bin/proofc-unittests --gtest_filter="GpuRollouts.*:CompiledBundle.*" 2>&1 | grep -iE "skip|PASSED|FAILED" | head -20
for d in kinship family; do
  PYTHONPATH=$N/python:$PWD PROOFC_BIN_DIR=$N/bin timeout 150 python3 -m proofc.training \
    .gpudata/bundles/v10-b4096.pcb --data .gpudata/data/$d \
    -o /tmp/x-$d.safetensors --updates 20 --variant il --device cuda \
    --log $OUT/train-il-$d.json --no-progress > $OUT/train-il-$d.log 2>&1
  echo "train il $d rc=$? at $(( $(date +%s) - t0 )) s"
  tail -8 $OUT/train-il-$d.log
done
cp .fbdata/bundles/v10-b16384.pcb /tmp/head.pcb
for r in 1 2; do call_whole_split head$r /tmp/head.pcb; done
call_same_results head1 head2
call_pack_whole_splits fb head1 head2
echo "all $(( $(date +%s) - t0 )) s"
