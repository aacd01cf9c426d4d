#!/usr/bin/env bash
# Call C: f16x3 as the default (chooseMatmul: v10's linears are 16-aligned).
# Every GPU test (scripts/gpu-check.sh: the compiled bundles of
# test/compiled-bundles.txt, 3xF16 by default plus a persistent and a
# B = 8192 step bundle in 3xTF32; the device prologue's f16_fragments
# against the host's); status and depth against the CPU host per dataset
# (.gpudata/bundles' v10-b8192.pcb is 3xF16 now, .gpudata/f16's the 3xTF32
# ones); the 3xF16 outcome files byte-identical across B (256, 4096, 8192)
# and cond modes.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc JOBS=16 bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -6 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -E "^\[ +(FAILED)" /tmp/gc/tests.log | head -20
grep -cE "^\[ +OK" /tmp/gc/tests.log
grep -E "bundle   \]" /tmp/gc/tests.log | head -20
N=build-gpu-device
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
  agree $d .gpudata/bundles/v10-b8192.pcb f16 --queries 300 --corruptions 100
done
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
for b in 256 4096; do
  $N/bin/proofc-run .gpudata/bundles/v10-b$b.pcb $W --device cuda --quiet --outcomes /tmp/f16-b$b.tsv > /dev/null 2>&1
done
$N/bin/proofc-run .gpudata/bundles/v10-b8192.pcb $W --device cuda --quiet --outcomes /tmp/f16-b8192.tsv > /dev/null 2>&1
for c in emulated host; do
  $N/bin/proofc-run .gpudata/bundles/v10-b8192.pcb $W --device cuda --cond $c --quiet --outcomes /tmp/f16-b8192-$c.tsv > /dev/null 2>&1
done
for f in b256 b4096 b8192-emulated b8192-host; do
  cmp -s /tmp/f16-$f.tsv /tmp/f16-b8192.tsv && echo "f16 $f byte-identical to b8192" || echo "f16 $f DIFFERS from b8192"
done
echo "all $(( $(date +%s) - t0 )) s"
