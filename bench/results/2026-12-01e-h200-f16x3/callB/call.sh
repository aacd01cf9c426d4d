#!/usr/bin/env bash
# Call B: matmul=f16x3 (the policy's linears by mma.sync m16n8k16 with
# each operand split into two f16 parts) against the default tf32x3.
# Agreement: status and depth of every candidate against the CPU host
# backend, per dataset (kinship folds the first linear; family and umls,
# over the fold's budget, run both linears on the tensor cores). Speed:
# the session bench's medians at B = 8192, 4096 and 256, three rounds;
# the first policy launch (the start states' children, the same rows in
# both) from a CUPTI timeline.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
agree() { # DATASET BUNDLE LABEL [flags]
  local d=$1 bundle=$2 label=$3; shift 3
  local W="--data .gpudata/data/$d --weights .gpudata/weights/$d.safetensors"
  [ -f /tmp/host-$d.tsv ] || $N/bin/proofc-run $bundle $W --device cpu --quiet --outcomes /tmp/host-$d.tsv "$@" > /tmp/run.err 2>&1 || { echo "host $d failed"; tail -3 /tmp/run.err; }
  $N/bin/proofc-run $bundle $W --device cuda --quiet --outcomes /tmp/$label-$d.tsv "$@" > /tmp/run.err 2>&1 || { echo "$label $d failed"; tail -3 /tmp/run.err; return; }
  local n diff
  n=$(grep -vc '^#\|^query' /tmp/host-$d.tsv)
  diff=$(paste <(cut -f1-5 /tmp/host-$d.tsv) <(cut -f1-5 /tmp/$label-$d.tsv) | awk -F'\t' 'NR>2 && ($1!=$6||$2!=$7||$3!=$8||$4!=$9||$5!=$10)' | wc -l)
  echo "$label $d: $diff of $n candidates differ from the host in status or depth"
}
for d in kinship countries_s1 countries_s2 countries_s3 nations umls family; do
  Q="--queries 100 --corruptions 100"
  agree $d .gpudata/bundles/v10-b8192.pcb tf32 $Q
  agree $d .gpudata/f16/v10-b8192-f16.pcb f16 $Q
done
echo "agreement at $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
  for b in 8192 4096 256; do
    call_session_median $N/bin/proofc-session-bench .gpudata/bundles/v10-b$b.pcb "tf32 b$b r$r"
    call_session_median $N/bin/proofc-session-bench .gpudata/f16/v10-b$b-f16.pcb "f16 b$b r$r"
  done
done
rm -f $OUT/sb-*.json
call_timeline_lib /tmp/kt.so
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
for v in tf32:.gpudata/bundles/v10-b8192.pcb f16:.gpudata/f16/v10-b8192-f16.pcb; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-${v%%:*}.csv $N/bin/proofc-session-bench ${v#*:} $W --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 - /tmp/tl-${v%%:*}.csv ${v%%:*} <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))]
k = sorted((int(r[1]), int(r[2]), r[4]) for r in rows if r[0] == 'kernel')
i = max(j for j, x in enumerate(k) if x[2] == 'proofc_init')
run = k[i:]
pol = [x for x in run if x[2].startswith('proofc_policy')]
adv = [x for x in run if x[2] == 'proofc_advance_engine']
us = lambda xs: sum(e - s for s, e, _ in xs) / 1e3
print(sys.argv[2], 'span %.1f us; first policy launch %.1f us; policy launches %.1f us (%d); advance-engine %.1f us (%d)' % ((run[-1][1] - run[0][0]) / 1e3, (pol[0][1] - pol[0][0]) / 1e3, us(pol), len(pol), us(adv), len(adv)))
PY
done
echo "all $(( $(date +%s) - t0 )) s"
