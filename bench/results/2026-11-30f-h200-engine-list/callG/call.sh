#!/usr/bin/env bash
# Call G: row 39 as committed, the list compiled only from B = 8192
# (-DPROOFC_ENGINE_LIST=1; below, the advance-engine's machine code is
# 4c850d3's byte for byte, the cubins' .text compared on the CPU machine).
# The GPU tests (scripts/gpu-check.sh, TestBundle.h's fused step with the
# list), then V10 at B = 8192 and 16384 against 4c850d3's (its runtime
# built from .gpudata/oldtree), outcomes and the session bench, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -4 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
O=.gpudata/oldtree
ln -sfn $PWD/.deps $O/.deps
(cd $O && JOBS=16 scripts/gpu-build.sh $OUT/build-old.log proofc-run proofc-session-bench > /dev/null 2>&1) || { tail -30 $OUT/build-old.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
bin() { [ "${1:-}" = -old ] && echo $O/$N/bin || echo $N/bin; }
for b in 4096 8192 16384; do
  for v in "" -old; do $(bin $v)/proofc-run $d/sw/v10-b$b$v.pcb $W $Q --outcomes /tmp/o$b$v.tsv > /tmp/run.err 2>&1 || { echo "run $b$v failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o$b.tsv /tmp/o$b-old.tsv && echo "B=$b outcomes byte-identical to 4c850d3's" || echo "B=$b outcomes DIFFER"
done
sb() { timeout 60 $(bin $2)/proofc-session-bench $d/sw/v10-b$1$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 v10-b$1$2" || tail -2 /tmp/sb.err; }
for round in 1 2; do for b in 8192 16384; do for v in "" -old; do sb $b "$v" "r$round"; done; done; done
echo "all $(( $(date +%s) - t0 )) s"
