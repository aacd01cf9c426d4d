#!/usr/bin/env bash
# Call A: the pool's order against V10's tail. At B = 8192 the pool's
# stride is ceil(18745 / 8192) = 3 (row 20); the run's last ~0.5 ms are
# the steps after the pool empties, each one slot's chain. Does another
# stride (PROOFC_EXP_POOL_STRIDE, an experiment's override of poolStride)
# shorten them? Outcomes against auto's (expected byte-identical: no
# outcome depends on the order), session bench medians, two rounds.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
P=.gpudata/bundles/v10-b8192.pcb
$N/bin/proofc-run $P $W --device cuda --quiet --outcomes /tmp/auto.tsv > /tmp/run.err 2>&1 || { echo "auto failed"; tail -3 /tmp/run.err; }
for s in 1 2 4 6 12 101 187; do
  PROOFC_EXP_POOL_STRIDE=$s $N/bin/proofc-run $P $W --device cuda --quiet --outcomes /tmp/s$s.tsv > /tmp/run.err 2>&1 || { echo "s$s failed"; tail -3 /tmp/run.err; }
  cmp -s /tmp/s$s.tsv /tmp/auto.tsv && echo "s$s outcomes byte-identical to auto" || echo "s$s outcomes DIFFER"
done
for r in 1 2; do
  for s in 0 1 2 4 6 12 101 187; do
    PROOFC_EXP_POOL_STRIDE=$s call_session_median $N/bin/proofc-session-bench $P "s$s r$r"
  done
  for s in 0 2 4 6; do
    PROOFC_EXP_POOL_STRIDE=$s call_session_median $N/bin/proofc-session-bench .gpudata/bundles/v10-b4096.pcb "b4096 s$s r$r"
  done
done
call_timeline_lib /tmp/kt.so
for s in 0 6; do
  PROOFC_EXP_POOL_STRIDE=$s CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$s.csv $N/bin/proofc-session-bench $P --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $s failed"
  python3 - /tmp/tl-$s.csv s$s <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))]
k = sorted((int(r[1]), int(r[2]), r[4]) for r in rows if r[0] == 'kernel')
i = max(j for j, x in enumerate(k) if x[2] == 'proofc_init')
run = k[i:]
pol = [x for x in run if x[2].startswith('proofc_policy')]
adv = [x for x in run if x[2] == 'proofc_advance_engine']
us = lambda xs: sum(e - s for s, e, _ in xs) / 1e3
print(sys.argv[2], 'span %.1f us; policy launches %.1f us (%d); advance-engine %.1f us (%d)' % ((run[-1][1] - run[0][0]) / 1e3, us(pol), len(pol), us(adv), len(adv)))
print(sys.argv[2], 'per launch (us):', ' '.join('%s:%.0f' % (n.replace('proofc_', '')[:6], (e - s) / 1e3) for s, e, n in run))
PY
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
