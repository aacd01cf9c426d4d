#!/usr/bin/env bash
# Call A: where a Session call's time beyond its run goes, the reset graph
# (the zero fills before a run as one graph of memset nodes) against 0dc09bd
# (.gpudata/oldtree, `git archive 0dc09bd`, its runtime built here too), and
# the fold's weight conversions.
# - V10 (kinship) session bench at B = 8192 and 256 with the landed bundles
#   (.gpudata/r43 = main's kernels), both runtimes, two rounds interleaved:
#   the medians, and per call the setup, readback and report; each call's
#   MRR compared between the runtimes (the same weights: the reset graph
#   must leave every call's outcomes as they were).
# - One traced call of each (PROOFC_TIMELINE_API=1): API calls, host gaps and
#   device work in order (bench/proto/call_breakdown.py).
# - fold_atom_layer alone (bench/proto/fold_atom_layer.cu): main's kernel
#   against k = W^T widened to double once into (dynamic) shared memory,
#   n = k at 4 outputs x 8 rows, o = k with 256 threads at 4 x 2
#   (.gpudata/fal/<v>/); two rounds, table hashes compared; Nsight Compute
#   on main's and k.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
O=.gpudata/oldtree
ln -sfn $PWD/.deps $O/.deps
mkdir -p $OUT/old
JOBS=8 call_build $N proofc-run proofc-session-bench &
(cd $O && JOBS=8 OUT=$OUT/old call_build $N proofc-run proofc-session-bench) &
wait
[ -x $N/bin/proofc-session-bench ] && [ -x $O/$N/bin/proofc-session-bench ] || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
sb() { [ "$1" = old ] && echo $O/$N/bin/proofc-session-bench || echo $N/bin/proofc-session-bench; }
for r in 1 2; do for b in 8192 256; do for v in new old; do
  call_session_median $(sb $v) .gpudata/r43/v10-b$b.pcb "$v B=$b r$r"
done; done; done
python3 - $OUT <<'PY'
import json, statistics, sys
out = sys.argv[1]
for b in (8192, 256):
    runs = {v: json.load(open(f"{out}/sb-{v}-B={b}-r2.json")) for v in ("new", "old")}
    for v, j in runs.items():
        print(f"B={b} {v}: " + ", ".join(
            f"{k} {statistics.median(c[k] for c in j['calls']):.3f}"
            for k in ("setup_ms", "run_ms", "readback_ms", "report_ms", "overhead_ms")))
    same = all(a["mrr"] == c["mrr"] for a, c in zip(runs["new"]["calls"], runs["old"]["calls"]))
    print(f"B={b}: every call's MRR equal between the runtimes: {same} "
          f"({len(runs['new']['calls'])} calls; first {runs['new']['calls'][0]['mrr']}, last {runs['new']['calls'][-1]['mrr']})")
PY
call_timeline_lib /tmp/kt.so
for v in new old; do
  PROOFC_TIMELINE_API=1 CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-api-$v.csv $(sb $v) .gpudata/r43/v10-b8192.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 4 > /dev/null 2>&1 || echo "traced bench $v failed"
  echo "== $v, B=8192, one traced call"; python3 bench/proto/call_breakdown.py $OUT/tl-api-$v.csv
done
echo "session part at $(( $(date +%s) - t0 )) s"
nvcc -O3 -arch=sm_90 -Xptxas -v -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-main > /tmp/nvcc-main.log 2>&1 || { echo "nvcc main failed"; tail -5 /tmp/nvcc-main.log; }
for v in k n o; do nvcc -O3 -arch=sm_90 -Xptxas -v -I .gpudata/fal/$v .gpudata/fal/fal-dyn.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 || { echo "nvcc $v failed"; tail -5 /tmp/nvcc-$v.log; }; done
grep -h "registers" /tmp/nvcc-*.log
for round in 1 2; do for v in main k n o; do echo "r$round $v $(/tmp/fal-$v)"; done; done
for v in main k; do
  ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --metrics smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum -k proofc_prologue_fold_atom_layer -c 1 /tmp/fal-$v > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "Duration|Compute \(SM\)|Achieved Occupancy|highest-utilized|fp64|inst_executed.sum" $OUT/ncu-$v.txt | head -10
done
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
