#!/usr/bin/env bash
# Call B (one H100, after call A on the same warm machine): which B is the
# cond-free torch port's fastest on an H100 (call A ran it at 4096 only,
# the fastest on the H200s), against proofc at 4096 and 12288 in the same
# run; then fb15k-237's whole split with every filtered corruption
# (random weights, B = 16384, two workers, cold kernel cache) twice, its
# results compared: the large target on the card.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
BENCH_BUDGET_S=380 bash bench/run.sh --no-large --no-memo-off --batches 4096,12288 --torch-batches 2048,4096,8192 --torch-variants nocond --repeats 5 2>&1 | tail -22
echo "bench at $(( $(date +%s) - t0 )) s"
N=build-gpu-device
cp .fbdata/bundles/v10-b16384.pcb /tmp/head.pcb
for r in 1 2; do call_whole_split head$r /tmp/head.pcb; done
call_same_results head1 head2
call_pack_whole_splits fb head1 head2
echo "all $(( $(date +%s) - t0 )) s"
