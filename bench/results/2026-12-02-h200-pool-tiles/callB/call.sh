#!/usr/bin/env bash
# Call B: what a policy tile without the parent's row would save. V10's
# derived lists are mostly k = 64 long (every kinship predicate has 64
# rules), which a tile of the parent and 15 children takes in 5 tiles and
# a tile of 16 children (the parent's encoding read, not computed) in 4.
# nop.pcb is the compiler with PROOFC_EXP_NOPARENT (the step policy
# kernel's rows all children; enc(parent) taken from the tile's row 0,
# which is wrong, so only the first policy launch, which encodes the start
# states' children whatever the logits, compares). CUPTI timeline, every
# run of --calls 5: each run's first policy launch and its engine.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
call_timeline_lib /tmp/kt.so
for r in 1 2; do
for v in base nop; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv $N/bin/proofc-session-bench .gpudata/exp/$v.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 5 > /tmp/sb-$v.json 2>/tmp/sb.err || { echo "traced $v failed"; tail -3 /tmp/sb.err; }
  python3 - /tmp/tl-$v.csv "$v r$r" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))]
k = sorted((int(r[1]), int(r[2]), r[4]) for r in rows if r[0] == 'kernel')
inits = [j for j, x in enumerate(k) if x[2] == 'proofc_init']
firsts = []
for a, i in enumerate(inits):
    end = inits[a + 1] if a + 1 < len(inits) else len(k)
    run = k[i:end]
    pol = [x for x in run if x[2].startswith('proofc_policy')]
    eng = [x for x in run if x[2] == 'proofc_engine']
    firsts.append(((pol[0][1] - pol[0][0]) / 1e3, (pol[1][1] - pol[1][0]) / 1e3, (eng[0][1] - eng[0][0]) / 1e3 if eng else -1, (run[-1][1] - run[0][0]) / 1e3))
print(sys.argv[2], 'first policy launch us:', ' '.join('%.1f' % f[0] for f in firsts), '| second:', ' '.join('%.1f' % f[1] for f in firsts), '| engine:', ' '.join('%.1f' % f[2] for f in firsts), '| span:', ' '.join('%.0f' % f[3] for f in firsts))
PY
done
done
echo "all $(( $(date +%s) - t0 )) s"
