#!/usr/bin/env bash
# Call C: the policy kernel's form for the whole splits. A B = 16384 bundle
# is compiled with the atom-layer table (V10's data fits it), so auto gives
# the folded form's 20 blocks an SM and one k-step in flight; wn18rr and
# fb15k-237 are over the table's budget and run the kernel's unfolded path
# under those choices. `--no-atom-layer-table` compiles the unfolded form's
# own (18 blocks, two k-steps in flight). wn18rr's trained policy, its first
# 300 test queries with every filtered corruption, two rounds interleaved:
# the report's GPU run (summed over the two workers) and the process wall;
# outcomes against auto's.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
K=.gpudata/knob
R="--data .gpudata/data/wn18rr --weights .gpudata/weights/wn18rr.safetensors --split test --corruptions 0 --queries 300 --device cuda --quiet"
for v in auto nt-auto nt-mb20 nt-mb16 mb16 mb14 mb0; do  # warm the kernel cache
  $N/bin/proofc-run $K/b16384-$v.pcb $R --queries 2 > /dev/null 2>&1 || echo "$v warm failed"
done
for r in 1 2; do
  for v in auto nt-auto nt-mb20 nt-mb16 mb16 mb14 mb0; do
    s=$(date +%s.%N)
    $N/bin/proofc-run $K/b16384-$v.pcb $R --report /tmp/$v.json --outcomes /tmp/$v.tsv > /tmp/e 2>&1 || { echo "$v failed"; tail -3 /tmp/e; continue; }
    e=$(date +%s.%N)
    python3 -c "
import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']
print(sys.argv[2], 'wall %.2f s' % (float(sys.argv[4]) - float(sys.argv[3])), ' '.join('%s %s' % (k, round(v, 3) if isinstance(v, float) else v) for k, v in t.items() if not isinstance(v, (dict, list))))" /tmp/$v.json "$v r$r" $s $e
    [ $v = auto ] || { cmp -s /tmp/$v.tsv /tmp/auto.tsv && echo "$v outcomes byte-identical to auto" || echo "$v outcomes differ from auto: $(cmp /tmp/$v.tsv /tmp/auto.tsv | head -1)"; }
  done
done
echo "all $(( $(date +%s) - t0 )) s"
