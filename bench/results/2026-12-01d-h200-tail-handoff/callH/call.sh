#!/usr/bin/env bash
# Call H: the tail kernel on the loop's own step memo (calls E-G gave it a
# second, empty table: the lowering declared the memo's buffers once per
# kernel that advances). Outcomes against the landed bundle and across the
# cond modes; session bench medians, three rounds; the GPU tests of the
# compiled bundles, rollouts, sessions and streaming.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
run() { $N/bin/proofc-run $1 $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes $2 "${@:3}" > /tmp/run.err 2>&1 || { echo "run $1 ${3:-} failed"; tail -3 /tmp/run.err; }; }
run .gpudata/r43/v10-b8192.pcb /tmp/o-landed.tsv
for v in auto t0 t400; do
  run .gpudata/th/v10-8192-$v.pcb /tmp/o-$v.tsv
  cmp -s /tmp/o-$v.tsv /tmp/o-landed.tsv && echo "$v outcomes byte-identical to the landed bundle's" || echo "$v outcomes DIFFER"
done
for c in emulated host; do
  run .gpudata/th/v10-8192-auto.pcb /tmp/o-auto-$c.tsv --cond $c
  cmp -s /tmp/o-auto-$c.tsv /tmp/o-landed.tsv && echo "auto --cond $c byte-identical" || echo "auto --cond $c DIFFER"
done
for r in 1 2 3; do for v in t0 auto t400; do
  call_session_median $N/bin/proofc-session-bench .gpudata/th/v10-8192-$v.pcb "$v r$r"
done; done
mkdir -p $OUT/sb && mv $OUT/sb-*r3.json $OUT/sb/; rm -f $OUT/sb-*.json; tar -czf $OUT/sb.tar.gz -C $OUT sb && rm -rf $OUT/sb
OUT=/tmp/gc JOBS=16 bash scripts/gpu-check.sh '*Compiled*:GpuRollouts*:*GpuSession*:*GpuStreaming*' > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -4 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -cE "^\[ +OK" /tmp/gc/tests.log
echo "all $(( $(date +%s) - t0 )) s"
