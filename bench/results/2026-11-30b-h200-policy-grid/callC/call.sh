#!/usr/bin/env bash
# Call C: an idle grid's cost a step and device-side grid updates in a WHILE
# body (bench/proto/graph_grid.cpp); V10 at B=4096 by steps per WHILE
# iteration (--unroll) and with two-warp policy blocks.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
(JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; echo BUILD FAILED; }) &
g++ -O2 bench/proto/graph_grid.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda -lnvrtc -o /tmp/graph_grid && /tmp/graph_grid 2>&1 | tee $OUT/graph_grid.txt
wait
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
sb() { timeout 60 $b $d/sw/$1.pcb $W --calls 15 ${2:-} > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$1 ${2:-}" || tail -2 /tmp/sb.err; }
for round in 1 2; do
  for u in 8 16 40 1; do sb v10-b4096 "--unroll $u"; done
  sb v10-b4096-g2; sb v10-b4096-g2m10
done
echo "done $(( $(date +%s) - t0 )) s"
