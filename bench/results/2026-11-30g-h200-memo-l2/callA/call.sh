#!/usr/bin/env bash
# Call A: does a memo hit wait on DRAM? V10 at B = 8192 and 4096 (session
# bench, 15 calls, two rounds interleaved) with the step memo at 2^18, 2^19
# (auto) and 2^20 entries, and with the memo's lines kept in a persisting
# L2 window set on the advance-engine's nodes (PROOFC_X_L2=<MiB>, the
# experiment in exp-l2.diff: cuCtxSetLimit and an access-policy window).
# Outcomes with the window against without (byte-identical expected).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
python3 -c "import torch; p=torch.cuda.get_device_properties(0); print('L2', p.L2_cache_size, 'SMs', p.multi_processor_count)"
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 8192 4096; do
  $N/bin/proofc-run $d/sw/v10-b$b.pcb $W $Q --outcomes /tmp/o$b.tsv > /tmp/run.err 2>&1 || { echo "run $b failed"; tail -2 /tmp/run.err; }
  PROOFC_X_L2=32 $N/bin/proofc-run $d/sw/v10-b$b.pcb $W $Q --outcomes /tmp/o$b-l2.tsv 2> /tmp/run.err || { echo "run $b l2 failed"; tail -2 /tmp/run.err; }
  grep exp-l2 /tmp/run.err | head -1
  cmp -s /tmp/o$b.tsv /tmp/o$b-l2.tsv && echo "B=$b outcomes with the L2 window byte-identical" || echo "B=$b outcomes DIFFER"
done
sb() { # B memo l2 label
  timeout 60 env ${3:+PROOFC_X_L2=$3} $N/bin/proofc-session-bench $d/sw/v10-b$1.pcb $W --calls 15 --memo-entries $2 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$4 B=$1 memo=$2 l2=${3:-none}" || tail -2 /tmp/sb.err; }
for round in 1 2; do
  for m in -1 262144 1048576; do sb 8192 $m "" r$round; done
  for l in 16 24 32 40; do sb 8192 -1 $l r$round; done
  for l in 24 40; do sb 8192 262144 $l r$round; done
  for m in -1 262144; do sb 4096 $m "" r$round; done
  sb 4096 -1 32 r$round
done
echo "all $(( $(date +%s) - t0 )) s"
