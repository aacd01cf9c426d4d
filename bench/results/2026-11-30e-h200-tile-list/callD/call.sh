#!/usr/bin/env bash
# Call D: V10's fastest B after row 38 (call C: B = 8192 3.37 ms against
# 4096's 3.44). The session bench (two rounds) at B = 4096, 8192, 12288
# (resized: the rule B >= 1024 and < 16384), 16384 and 32768 as compiled
# (no resize from 16384, no memo waits) and "-rs" (compiled with the resize
# at every B >= 1024), "-rs-w2" (also --memo-max-waits 2); outcomes of each
# byte-identical to B = 4096's.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
V="b4096 b8192 b12288 b16384 b16384-rs b16384-rs-w2 b32768 b32768-rs b32768-rs-w2"
for v in $V; do
  $N/bin/proofc-run $d/sw/v10-$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$v.tsv > /tmp/run.log 2>&1 || { echo "run $v failed"; tail -3 /tmp/run.log; }
  cmp -s /tmp/out-$v.tsv /tmp/out-b4096.tsv && echo "$v outcomes byte-identical to B=4096's" || echo "$v outcomes DIFFER"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do for v in $V; do sb v10-$v "r$round"; done; done
echo "done $(( $(date +%s) - t0 )) s"
