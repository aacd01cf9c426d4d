#!/usr/bin/env bash
# Call B: the GPU's spare capacity beside one V10 proof loop. Call A's
# blocks ran on two workers but each block set its pool up again (12-50 ms
# of host work a call), so whether the loops overlapped is unknown (its
# CUPTI trace did not finish within the call). Here the session bench's
# --sessions N evaluates N sessions (each a stream of its own, its pool set
# up once) from N threads released together: the round's wall against one
# session's call. If two full loops side by side take about twice one, the
# GPU has no room for a second loop and the halves-offset design is moot.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
B=.gpudata/bundles
D="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --corruptions 100 --calls 15"
for r in 1 2; do
  for v in "b8192 100 1" "b8192 100 2" "b4096 100 2" "b4096 50 1" "b8192 50 1" "b4096 50 2" "b8192 50 2" "b2048 50 2" "b2048 25 4" "b4096 25 4"; do
    set -- $v
    json=$OUT/sb-$1-q$2-s$3-r$r.json
    if [ $3 = 1 ]; then
      timeout 120 $N/bin/proofc-session-bench $B/v10-$1.pcb $D --queries $2 > $json 2> /tmp/e || { echo "$v failed"; tail -2 /tmp/e; continue; }
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'one session: run %.3f call %.3f ms mrr %s' % (j['median_run_ms'], j['median_call_ms'], j['calls'][0]['mrr']))" $json "$v r$r"
    else
      timeout 120 $N/bin/proofc-session-bench $B/v10-$1.pcb $D --queries $2 --sessions $3 > $json 2> /tmp/e || { echo "$v failed"; tail -2 /tmp/e; continue; }
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'side by side: round %.3f ms, runs %s, mrr %s' % (j['median_round_ms'], ' '.join('%.3f' % x for x in j['median_run_ms_each']), j['mrr']))" $json "$v r$r"
    fi
  done
done
echo "all $(( $(date +%s) - t0 )) s"
