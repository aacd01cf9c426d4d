#!/usr/bin/env bash
# Call A (probe): how much of a policy launch the tensor-core k-steps are.
# V10 at B = 8192 as compiled (p0), with half the second linear's k-steps
# (p1: the count of mma.sync and weight loads an m16n8k16 f16 layer would
# have) and with one TF32 product a k-step instead of three (p2). p1 and
# p2 compute wrong logits, so only the first policy launch (the start
# states' children, the same rows whatever the logits) is compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
N=build-gpu-device
call_build $N proofc-session-bench || exit 1
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
call_timeline_lib /tmp/kt.so
mkdir -p $OUT/tl
for round in 1 2; do
for v in p0 p1 p2; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl/$v-$round.csv $N/bin/proofc-session-bench .gpudata/probe/$v.pcb $W --calls 5 > /dev/null 2>&1 || echo "traced $v failed"
  python3 - $OUT/tl/$v-$round.csv $v <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))]
k = sorted((int(r[1]), int(r[2]), r[4]) for r in rows if r[0] == 'kernel')
inits = [i for i, x in enumerate(k) if x[2] == 'proofc_init']
firsts = []
for i in inits:
    pol = [x for x in k[i:] if x[2] == 'proofc_policy']
    firsts.append((pol[0][1] - pol[0][0]) / 1e3)
print(sys.argv[2], 'first policy launch us', ' '.join('%.1f' % f for f in firsts))
PY
done
done
for v in p0 p1 p2; do call_session_median $N/bin/proofc-session-bench .gpudata/probe/$v.pcb $v; done
tar -czf $OUT/tl.tar.gz -C $OUT tl && rm -rf $OUT/tl
