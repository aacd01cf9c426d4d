#!/usr/bin/env bash
# Call E: the tail hand-off as the compiler builds it (tail-handoff auto:
# 264 at B = 8192; the plan's "tail" launches proofc_policy_tail, the
# persistent form of the loop's policy with its blocks mapped by the
# advance-engine's list). Bundles in .gpudata/th, compiled here from
# examples/v10.mlir --slots 8192 with --tail-handoff auto, 0 and 400.
# Outcomes against the landed bundle (.gpudata/r43/v10-b8192.pcb, a087845's
# compiler) and across the cond modes; cold compiles (an empty kernel
# cache each); session bench medians, three rounds; the GPU tests
# (scripts/gpu-check.sh, the compiled bundles of test/compiled-bundles.txt
# with and without the hand-off at 8192).
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
for r in 1 2; do for v in auto t0; do
  PROOFC_CACHE_DIR=/tmp/cold-$v-$r $N/bin/proofc-run .gpudata/th/v10-8192-$v.pcb $W --queries 100 --corruptions 100 --device cuda 2>&1 | grep -E "^time" | sed "s/^/cold $v r$r: /"
done; done
for r in 1 2 3; do for v in t0 auto t400; do
  call_session_median $N/bin/proofc-session-bench .gpudata/th/v10-8192-$v.pcb "$v r$r"
done; done
mkdir -p $OUT/sb && mv $OUT/sb-*r3.json $OUT/sb/; rm -f $OUT/sb-*.json; tar -czf $OUT/sb.tar.gz -C $OUT sb && rm -rf $OUT/sb
OUT=/tmp/gc JOBS=16 bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -8 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -E "Compiled|TailHandoff" /tmp/gc/tests.log | grep -E "^\[ +(OK|FAILED|SKIPPED)" | head -40
echo "all $(( $(date +%s) - t0 )) s"
