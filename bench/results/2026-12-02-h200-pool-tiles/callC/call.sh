#!/usr/bin/env bash
# Call C: where a cold compile's time goes on the GPU machine. The bench's
# compile_cold_s (every module compiled at once, in threads) has measured
# 0.73-1.14 s on different machines, each module about twice its time
# alone on the CPU machine. bench/proto/cold_compile.py (NVRTC and
# nvJitLink as the runtime calls them) in threads, in a process each and
# one after another, three repeats each, on V10's B = 8192 and B = 256
# bundles: whether the modules contend when compiled together, and if so
# inside the process or for the machine.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
nproc
for b in v10-b8192 v10-b256; do
  echo "== $b parallel"
  python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 3 2>&1 | tail -3
  echo "== $b processes"
  python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 3 --processes 2>&1 | tail -3
  echo "== $b serial"
  python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 3 --serial 2>&1 | tail -3
done
