#!/usr/bin/env bash
# Call F: rows 44-45 as committed -- the reset graph, and the fold on the
# FP64 tensor core (call E's m2 with the grid capped at
# kAtomLayerMaxGrid = 2048) -- against 0dc09bd (.gpudata/oldtree). The GPU
# tests (scripts/gpu-check.sh); V10 outcomes of both runtimes
# (proofc-run, B = 8192 and 256, the table made by the device fold); the
# fold kernel alone, both prologue.cu files, two rounds, hashes compared;
# the session bench, both runtimes, three rounds interleaved at B = 8192
# and 256 with device weights and one with host weights, every call's MRR
# compared; one traced call of the new runtime
# (bench/proto/call_breakdown.py).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -E "GpuDevicePrologue|GpuSession" /tmp/gc/tests.log | grep -E "^\[ +(OK|FAILED|SKIPPED)" | head -30
N=build-gpu-device
O=.gpudata/oldtree
ln -sfn $PWD/.deps $O/.deps
mkdir -p $OUT/old
JOBS=8 call_build $N proofc-run proofc-session-bench &
(cd $O && JOBS=8 OUT=$OUT/old call_build $N proofc-run proofc-session-bench) &
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-new > /tmp/nvcc-new.log 2>&1 || { echo "nvcc new failed"; tail -5 /tmp/nvcc-new.log; }
nvcc -O3 -arch=sm_90 -I $O/runtime/src/cuda/kernels $O/bench/proto/fold_atom_layer.cu -o /tmp/fal-old > /tmp/nvcc-old.log 2>&1 || { echo "nvcc old failed"; tail -5 /tmp/nvcc-old.log; }
wait
[ -x $N/bin/proofc-session-bench ] && [ -x $O/$N/bin/proofc-session-bench ] || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
for round in 1 2; do for v in new old; do echo "r$round $v $(/tmp/fal-$v)"; done; done
bin() { [ "$1" = old ] && echo $O/$N/bin || echo $N/bin; }
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
for b in 8192 256; do
  for v in new old; do $(bin $v)/proofc-run .gpudata/r43/v10-b$b.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o-new-$b.tsv /tmp/o-old-$b.tsv && echo "B=$b outcomes byte-identical to 0dc09bd's runtime" || echo "B=$b outcomes DIFFER"
done
for r in 1 2 3; do for b in 8192 256; do for v in new old; do
  call_session_median $(bin $v)/proofc-session-bench .gpudata/r43/v10-b$b.pcb "$v B$b r$r"
done; done; done
for v in new old; do call_session_median $(bin $v)/proofc-session-bench .gpudata/r43/v10-b8192.pcb "$v B8192 host" --weights-on host; done
python3 - $OUT <<'PY'
import json, statistics, sys
out = sys.argv[1]
for tag in ("B8192-r1", "B8192-r2", "B8192-r3", "B256-r1", "B256-r2", "B256-r3", "B8192-host"):
    runs = {v: json.load(open(f"{out}/sb-{v}-{tag}.json")) for v in ("new", "old")}
    for v, j in runs.items():
        print(f"{tag} {v}: " + ", ".join(
            f"{k[:-3]} {statistics.median(c[k] for c in j['calls']):.3f}"
            for k in ("setup_ms", "run_ms", "readback_ms", "report_ms", "overhead_ms", "call_ms")))
    same = all(a["mrr"] == c["mrr"] for a, c in zip(runs["new"]["calls"], runs["old"]["calls"]))
    print(f"{tag}: every call's MRR equal between the runtimes: {same} "
          f"({len(runs['new']['calls'])} calls; first {runs['new']['calls'][0]['mrr']}, last {runs['new']['calls'][-1]['mrr']})")
PY
call_timeline_lib /tmp/kt.so
PROOFC_TIMELINE_API=1 CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-api-new.csv $(bin new)/proofc-session-bench .gpudata/r43/v10-b8192.pcb $W --calls 4 > /dev/null 2>&1 || echo "traced bench failed"
python3 bench/proto/call_breakdown.py $OUT/tl-api-new.csv | grep -v "cuPointerGetAttribute\|cuCtxGetDevice\|cuMemGetAddressRange"
gzip $OUT/*.csv
rm -f $OUT/sb-*-r1.json $OUT/sb-*-r2.json
echo "all $(( $(date +%s) - t0 )) s"
