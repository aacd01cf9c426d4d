#!/usr/bin/env bash
# Call D: V10's run against its pool size, B = 8192 and 4096 (the session
# bench's median of 15 calls, two rounds): the first 1, 5, 10, 25, 50, 75
# and 100 test queries, 100 corruptions each. Call B's two points put a run
# at about 0.85 ms whatever the pool plus 103 ns a candidate; here the
# curve, so that the part set by the chain of steps (the deepest proof, the
# tail) and the part set by the pool's throughput are measured, not fitted.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
B=.gpudata/bundles
for r in 1 2; do
  for b in b8192 b4096; do
    for q in 1 5 10 25 50 75 100; do
      json=$OUT/sb-$b-q$q-r$r.json
      timeout 120 $N/bin/proofc-session-bench $B/v10-$b.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --corruptions 100 --calls 15 --queries $q > $json 2> /tmp/e || { echo "$b q$q failed"; tail -2 /tmp/e; continue; }
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'candidates %d run %.3f call %.3f ms' % (j['candidates'], j['median_run_ms'], j['median_call_ms']))" $json "$b q$q r$r"
    done
  done
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
