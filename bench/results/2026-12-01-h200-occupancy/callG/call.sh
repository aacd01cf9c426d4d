#!/usr/bin/env bash
# Call G: three and four folded rows an embedding iteration
# (kFoldedRowsInFlight = 3, 4; ptxas: 80 registers, 44 / 108 bytes of
# spills) against row 41's two (.gpudata/r41), V10 at B = 4096 and 8192:
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
for b in 4096 8192; do for v in r41 n3 n4; do
  $N/bin/proofc-run $d/$v/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/o-$v-$b.tsv /tmp/o-r41-$b.tsv && echo "B=$b $v outcomes byte-identical to r41's" || echo "B=$b $v outcomes DIFFER"
done; done
sb() { timeout 60 $N/bin/proofc-session-bench $d/$1/v10-b$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $1 B=$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 4096 8192; do sb r41 $b r$round; sb n3 $b r$round; sb n4 $b r$round; done; done
echo "all $(( $(date +%s) - t0 )) s"
