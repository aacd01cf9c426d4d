#!/usr/bin/env bash
# Call A: the GPU tests with the step schedule's B = 8192 bundle added to the
# compiled bundles (scripts/gpu-check.sh: v10-step, v10-persistent,
# v10-step-b4096 and now v10-step-b8192, whose advance-engine lists its
# active slots and resizes its own next launch): every compiled-bundle test,
# rollouts (GpuRollouts) included, on that machine code. Then V10 by the
# session bench at B = 4096-16384 (the landed kernels, this tree's
# compiler), three rounds interleaved: whether another B than 8192 is now
# the fastest with row 39's list.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -30 /tmp/gc.out; cp /tmp/gc/failures.log /tmp/gc/tests.log /tmp/gc/build.log $OUT/ 2>/dev/null
echo "tests that ran a b8192 bundle:"; grep -c "v10-step-b8192" /tmp/gc/tests.log
grep -E '^\[       OK \] GpuRollouts|^\[  FAILED  \]' /tmp/gc/tests.log | sort | uniq | head -30
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build-bench.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build-bench.log; exit 1; }
echo "bench built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 4096 6144 8192 10240 12288 16384; do
  $N/bin/proofc-run $d/sw/v10-b$b.pcb $W $Q --outcomes /tmp/o$b.tsv > /tmp/run.err 2>&1 || { echo "run $b failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/o$b.tsv /tmp/o4096.tsv && echo "B=$b outcomes byte-identical to B=4096's" || echo "B=$b outcomes DIFFER from 4096's"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/sw/v10-b$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 v10-b$1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 4096 6144 8192 10240 12288 16384; do sb $b "r$round"; done; done
echo "all $(( $(date +%s) - t0 )) s"
