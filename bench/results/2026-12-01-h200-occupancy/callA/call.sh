#!/usr/bin/env bash
# Call A: the step policy kernel at more blocks an SM with one k-step in
# flight (row 32's choice). --min-blocks-per-sm 21 (the auto choice at
# B = 8192: 80 registers, 44 bytes of spills, 24 one-warp blocks an SM),
# 28 (72 registers, 112 bytes) and 32 (64 registers, 536 bytes), V10 at
# B = 8192: outcomes against 21's, then the session bench, three rounds
# interleaved. And where the policy kernel's live registers peak (nvdisasm
# -lrm count on ptxas's cubins), to see what a lower cap spills.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build-bench.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build-bench.log; exit 1; }
echo "bench built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for m in 21 28 32; do
  $N/bin/proofc-run $d/exp2/v10-b8192-m$m.pcb $W $Q --outcomes /tmp/o$m.tsv > /tmp/run.err 2>&1 || { echo "run m$m failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/o$m.tsv /tmp/o21.tsv && echo "m$m outcomes byte-identical to m21's" || echo "m$m outcomes DIFFER from m21's"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/exp2/v10-b8192-m$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 m$1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for m in 21 28 32; do sb $m "r$round"; done; done
echo "bench done at $(( $(date +%s) - t0 )) s"
which nvdisasm cuobjdump
for m in 21 28 32; do
  ptxas -arch=sm_90 -v $d/exp2/p$m.ptx -o /tmp/p$m.cubin 2>&1 | grep -E "registers|spill"
  nvdisasm -lrm count -c /tmp/p$m.cubin > $OUT/p$m.sass 2>&1 || echo "nvdisasm failed"
  cuobjdump -sass /tmp/p$m.cubin > $OUT/p$m.cuobjdump.sass 2>&1 || true
done
echo "all $(( $(date +%s) - t0 )) s"
