#!/usr/bin/env bash
# Call H: the persistent schedule (V10's default B = 256), whose kernel
# also embeds folded rows: row 40's bundle (.gpudata/r40, 5374410's
# Embedding.cpp and Tiling.h) against row 41's (.gpudata/r41, 4deff2f):
# outcomes compared, the session bench, three rounds interleaved.
set -uo pipefail
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
for v in r40 r41; do
  $N/bin/proofc-run $d/$v/v10-b256.pcb $W $Q --outcomes /tmp/o-$v.tsv > /tmp/run.err 2>&1 || { echo "run $v failed"; tail -2 /tmp/run.err; }
done
cmp -s /tmp/o-r40.tsv /tmp/o-r41.tsv && echo "B=256 row 41 outcomes byte-identical to row 40's" || echo "B=256 outcomes DIFFER"
sb() { timeout 60 $N/bin/proofc-session-bench $d/$1/v10-b256.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1 B=256" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do sb r40 r$round; sb r41 r$round; done
echo "all $(( $(date +%s) - t0 )) s"
