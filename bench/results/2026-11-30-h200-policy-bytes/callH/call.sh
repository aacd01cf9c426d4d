#!/usr/bin/env bash
# After row 35 (no L1 invalidation by every block): do the policy's blocks an
# SM and B still choose themselves? V10 session bench, two interleaved rounds:
# B=4096 at the default (21 blocks: 80 registers) and --min-blocks-per-sm 16,
# 18, 28, 32; B=3072 and 6144 at their defaults.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-m16 v10-b4096-m18 v10-b4096-m28 v10-b4096-m32 v10-b3072 v10-b6144; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > /tmp/sb.json 2> /tmp/sb.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f ms' % j['median_run_ms'])" /tmp/sb.json "r$round $bun" || tail -2 /tmp/sb.err
  done
done
echo "done $(( $(date +%s) - t0 )) s"
