#!/usr/bin/env bash
# Call H: the review's mend of proofc_init (a 64-bit grid-stride index, so
# a stride past the last slot cannot wrap; otherwise row 43's loop): the
# GPU tests that run the compiled bundles and the test bundle's init
# (scripts/gpu-check.sh with a filter); V10 outcomes of the mended bundles
# (.gpudata/r43m) against call G's row 43 ones (.gpudata/r43) at B = 257
# (2 init blocks, the second partly idle) and 8192.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh '*Compiled*:GpuDriver*:*GpuBackend*:GpuRollouts*:*GpuSession*' > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -6 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -cE '^\[       OK \]' /tmp/gc/tests.log
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 257 8192; do
  for v in r43m r43; do $N/bin/proofc-run $d/$v/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o-r43m-$b.tsv /tmp/o-r43-$b.tsv && echo "B=$b outcomes byte-identical to row 43's" || echo "B=$b outcomes DIFFER"
done
cmp -s /tmp/o-r43m-257.tsv /tmp/o-r43m-8192.tsv && echo "B=257 byte-identical to B=8192" || echo "B=257 differs from B=8192"
echo "all $(( $(date +%s) - t0 )) s"
