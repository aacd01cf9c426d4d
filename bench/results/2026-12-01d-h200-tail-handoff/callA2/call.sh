#!/usr/bin/env bash
# Call A2: call A's session benches again (call A passed --calls twice and
# the bench refused), on the runtime call A built (the machine still held).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-session-bench || exit 1
for r in 1 2; do for b in 64 128 256 512; do for s in step persistent; do
  call_session_median $N/bin/proofc-session-bench .gpudata/tp/v10-b$b-$s.pcb "B$b $s r$r"
done; done; done
call_session_median $N/bin/proofc-session-bench .gpudata/r43/v10-b8192.pcb "B8192 landed"
rm -f $OUT/sb-*-r1.json
echo "all $(( $(date +%s) - t0 )) s"
