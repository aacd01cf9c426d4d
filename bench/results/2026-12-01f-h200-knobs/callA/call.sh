#!/usr/bin/env bash
# Call A: the step policy kernel's register cap in 3xF16. At B = 8192 and
# 4096 auto asks ptxas for 21 blocks an SM (.minnctapersm 21, tuned for
# 3xTF32 in row 32), which it meets with 80 registers and 108 bytes of
# spill stores; 20 gives 96 registers and 48 bytes (and 96 x 32 x 21 still
# fits the 64 K register file), 16 128 registers, 12 168 and none 103
# (ptxas -v on the CPU machine). Session bench medians (15 calls, kinship's
# trained policy), three rounds, the variants interleaved; the CUPTI
# timeline's policy sums for mb21 and mb20; status and depth of mb20
# against mb21 (the same kernels' arithmetic: expected byte-identical).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
for v in b8192-mb21 b8192-mb20 b8192-mb16 b8192-mb0 b4096-mb21 b4096-mb20; do
  $N/bin/proofc-run .gpudata/knob/$v.pcb $W --device cuda --quiet --outcomes /tmp/$v.tsv > /tmp/run.err 2>&1 || { echo "$v failed"; tail -3 /tmp/run.err; }
  cmp -s /tmp/$v.tsv /tmp/b8192-mb21.tsv && echo "$v outcomes byte-identical to b8192-mb21" || echo "$v outcomes DIFFER"
done
for r in 1 2 3; do
  for v in b8192-mb21 b8192-mb20 b8192-mb16 b8192-mb12 b8192-mb0 b4096-mb21 b4096-mb20; do
    call_session_median $N/bin/proofc-session-bench .gpudata/knob/$v.pcb "$v r$r"
  done
done
call_timeline_lib /tmp/kt.so
for v in b8192-mb21 b8192-mb20; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv $N/bin/proofc-session-bench .gpudata/knob/$v.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  cp /tmp/tl-$v.csv $OUT/
  python3 - /tmp/tl-$v.csv $v <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))]
k = sorted((int(r[1]), int(r[2]), r[4]) for r in rows if r[0] == 'kernel')
i = max(j for j, x in enumerate(k) if x[2] == 'proofc_init')
run = k[i:]
pol = [x for x in run if x[2].startswith('proofc_policy')]
adv = [x for x in run if x[2] == 'proofc_advance_engine']
us = lambda xs: sum(e - s for s, e, _ in xs) / 1e3
print(sys.argv[2], 'span %.1f us; first policy launch %.1f us; policy launches %.1f us (%d); advance-engine %.1f us (%d)' % ((run[-1][1] - run[0][0]) / 1e3, (pol[0][1] - pol[0][0]) / 1e3, us(pol), len(pol), us(adv), len(adv)))
print(sys.argv[2], 'per launch (us):', ' '.join('%s:%.0f' % (n.replace('proofc_', '')[:6], (e - s) / 1e3) for s, e, n in run))
PY
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
