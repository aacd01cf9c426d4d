#!/usr/bin/env bash
# Call A: the premise of a tail hand-off (the step schedule's last steps
# finished by the persistent kernel): V10 with few slots, where every step
# is a tail step, as the step schedule and as the persistent kernel
# (.gpudata/tp: `proofc compile examples/v10.mlir --slots B --schedule S`);
# the session bench's run medians, two rounds. Also row 46's V10 outcome
# files against 0dc09bd's runtime (.gpudata/oldtree) at B = 8192 and 256,
# which the last stop's call I had no room for.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
O=.gpudata/oldtree
call_build_pair $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
bin() { [ "$1" = old ] && echo $O/$N/bin || echo $N/bin; }
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
for b in 8192 256; do
  for v in new old; do $(bin $v)/proofc-run .gpudata/r43/v10-b$b.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o-new-$b.tsv /tmp/o-old-$b.tsv && echo "B=$b outcomes byte-identical to 0dc09bd's runtime" || echo "B=$b outcomes DIFFER"
done
cmp -s /tmp/o-new-8192.tsv /tmp/o-new-256.tsv && echo "B=8192 and 256 byte-identical" || echo "B=8192 and 256 DIFFER"
for b in 64 128 256 512; do for s in step persistent; do
  $N/bin/proofc-run .gpudata/tp/v10-b$b-$s.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o-$b-$s.tsv > /tmp/run.err 2>&1 || { echo "run $b $s failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/o-$b-$s.tsv /tmp/o-new-8192.tsv && echo "B=$b $s outcomes byte-identical to B=8192's" || echo "B=$b $s outcomes DIFFER"
done; done
for r in 1 2; do for b in 64 128 256 512; do for s in step persistent; do
  call_session_median $N/bin/proofc-session-bench .gpudata/tp/v10-b$b-$s.pcb "B$b $s r$r" --calls 7
done; done; done
call_session_median $N/bin/proofc-session-bench .gpudata/r43/v10-b8192.pcb "B8192 landed" --calls 7
echo "all $(( $(date +%s) - t0 )) s"
