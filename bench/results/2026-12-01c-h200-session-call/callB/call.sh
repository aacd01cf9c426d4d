#!/usr/bin/env bash
# Call B: call A's session numbers again with the output kept (call A's
# output tail lost them): the reset graph against 0dc09bd's runtime
# (.gpudata/oldtree), V10 session bench at B = 8192 and 256, device and
# host weights, two rounds interleaved; per-call setup, run, readback and
# report medians; each call's MRR compared between the runtimes. Then
# bench/proto/dmma_order.cu (does mma.sync.m8n8k4.f64 give an FMA chain's
# bits?) and fold variants: main, n (W^T in double, 4 outputs x 8 rows),
# n3 (n capped at 128 registers), n4 (8 outputs x 4 rows), two rounds.
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
nvcc -O3 -arch=sm_90 bench/proto/dmma_order.cu -o /tmp/dmma > /tmp/nvcc-dmma.log 2>&1 || { echo "nvcc dmma failed"; tail -5 /tmp/nvcc-dmma.log; }
wait
[ -x $N/bin/proofc-session-bench ] && [ -x $O/$N/bin/proofc-session-bench ] || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
sb() { [ "$1" = old ] && echo $O/$N/bin/proofc-session-bench || echo $N/bin/proofc-session-bench; }
for r in 1 2; do for b in 8192 256; do for v in new old; do
  call_session_median $(sb $v) .gpudata/r43/v10-b$b.pcb "$v B$b r$r"
done; done; done
for v in new old; do call_session_median $(sb $v) .gpudata/r43/v10-b8192.pcb "$v B8192 host" --weights-on host; done
python3 - $OUT <<'PY'
import json, statistics, sys
out = sys.argv[1]
for tag in ("B8192-r1", "B8192-r2", "B256-r1", "B256-r2", "B8192-host"):
    runs = {v: json.load(open(f"{out}/sb-{v}-{tag}.json")) for v in ("new", "old")}
    for v, j in runs.items():
        print(f"{tag} {v}: " + ", ".join(
            f"{k[:-3]} {statistics.median(c[k] for c in j['calls']):.3f}"
            for k in ("setup_ms", "run_ms", "readback_ms", "report_ms", "overhead_ms", "call_ms")))
    same = all(a["mrr"] == c["mrr"] for a, c in zip(runs["new"]["calls"], runs["old"]["calls"]))
    print(f"{tag}: every call's MRR equal between the runtimes: {same} "
          f"({len(runs['new']['calls'])} calls; first {runs['new']['calls'][0]['mrr']}, last {runs['new']['calls'][-1]['mrr']})")
PY
echo "session part at $(( $(date +%s) - t0 )) s"
/tmp/dmma
echo "dmma at $(( $(date +%s) - t0 )) s"
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-main > /tmp/nvcc-main.log 2>&1 || { echo "nvcc main failed"; tail -5 /tmp/nvcc-main.log; }
for v in n n3 n4; do nvcc -O3 -arch=sm_90 -I .gpudata/fal/$v .gpudata/fal/fal-dyn.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 || { echo "nvcc $v failed"; tail -5 /tmp/nvcc-$v.log; }; done
for round in 1 2; do for v in main n n3 n4; do echo "r$round $v $(/tmp/fal-$v)"; done; done
echo "all $(( $(date +%s) - t0 )) s"
