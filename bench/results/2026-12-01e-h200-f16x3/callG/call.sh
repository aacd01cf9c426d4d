#!/usr/bin/env bash
# Call G: wn18rr (the shipped trained policy; calls B-E did not carry it):
# status and depth against the CPU host, 3xF16 (the default bundle at
# B = 8192) and 3xTF32, the first 200 test queries x 100 corruptions.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
d=wn18rr
W="--data .gpudata/data/$d --weights .gpudata/weights/$d.safetensors --queries 200 --corruptions 100"
$N/bin/proofc-run .gpudata/bundles/v10-b8192.pcb $W --device cpu --quiet --outcomes /tmp/host.tsv > /tmp/run.err 2>&1 || { echo "host failed"; tail -3 /tmp/run.err; }
echo "host at $(( $(date +%s) - t0 )) s"
for v in f16:.gpudata/bundles/v10-b8192.pcb tf32:.gpudata/f16/v10-b8192-tf32.pcb; do
  $N/bin/proofc-run ${v#*:} $W --device cuda --quiet --outcomes /tmp/${v%%:*}.tsv > /tmp/run.err 2>&1 || { echo "${v%%:*} failed"; tail -3 /tmp/run.err; continue; }
  n=$(grep -vc '^#\|^query' /tmp/host.tsv)
  diff=$(paste <(cut -f1-5 /tmp/host.tsv) <(cut -f1-5 /tmp/${v%%:*}.tsv) | awk -F'\t' 'NR>2 && ($1!=$6||$2!=$7||$3!=$8||$4!=$9||$5!=$10)' | wc -l)
  echo "${v%%:*} $d: $diff of $n candidates differ from the host in status or depth"
done
echo "all $(( $(date +%s) - t0 )) s"
