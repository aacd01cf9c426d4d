#!/usr/bin/env bash
# Call F: the landed tree's session bench on the GPU after this session's
# change to --sessions (device weights now an option of the side-by-side
# mode, host weights the other): one session and two side by side at
# B = 8192 (V10, device weights), two rounds, then two sessions given host
# weights. (The host backend's progress
# fix runs no GPU code: CI's suites check it.)
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-session-bench || exit 1
P=.gpudata/bundles/v10-b8192.pcb
for r in 1 2; do
  call_session_median $N/bin/proofc-session-bench $P "one r$r"
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('one', sys.argv[2], 'last call mrr %.6f' % j['calls'][-1]['mrr'])" $OUT/sb-one-r$r.json r$r
  timeout 120 $N/bin/proofc-session-bench $P --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 15 --sessions 2 > $OUT/two-r$r.json 2>/tmp/e || { echo "two r$r failed"; tail -2 /tmp/e; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('two', sys.argv[2], 'round %.3f ms, runs %s ms, mrr %.6f' % (j['median_round_ms'], ' '.join('%.3f' % x for x in j['median_run_ms_each']), j['mrr']))" $OUT/two-r$r.json r$r
done
timeout 120 $N/bin/proofc-session-bench $P --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 15 --sessions 2 --weights-on host > $OUT/two-host.json 2>/tmp/e || { echo "two host failed"; tail -2 /tmp/e; }
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('two host weights: round %.3f ms, runs %s ms, mrr %.6f' % (j['median_round_ms'], ' '.join('%.3f' % x for x in j['median_run_ms_each']), j['mrr']))" $OUT/two-host.json
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
