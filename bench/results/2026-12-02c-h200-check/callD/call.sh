#!/usr/bin/env bash
# Call D: where the quick tier's longest module (`policy_tail`: the
# policy's PTX, JITted, linked with slot.cu compiled by NVRTC) spends its
# time on the GPU machine, with the toolkit's own compilers (no runtime
# build): slot.cu's front end (cicc) and ptxas at --Ofast-compile=mid, as
# ModuleBuilds compiles it, and ptxas on the two policy PTX modules at the
# JIT's default level (-O3) and at -O1. Three rounds each, one at a time,
# then the five modules' compiles side by side, as a cold setup runs them.
# (As run, the module extraction, the timer and the side-by-side loop were
# written out here; call_lib.sh's call_bundle_modules, call_wall and
# call_side_by_side are the same.)
set -uo pipefail
source bench/proto/call_lib.sh
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L | tee "$OUT/gpu.txt"
lscpu | grep -E '^(CPU\(s\)|Thread|Model name)'
W=/tmp/jl
call_bundle_modules .gpudata/bundles/v10-b8192.pcb $W
slot() { # extra nvcc options
  rm -f $W/t.csv
  nvcc -arch=sm_90 -rdc=true -cubin $(cat $W/slot.opts) --Ofast-compile=mid "$@" -x cu $W/slot.cu \
    -o $W/slot.cubin -time $W/t.csv 2>/dev/null
  tail -n +2 $W/t.csv | awk -F' , ' '{printf "%s=%.0f ms  ", $2, $(NF-1)}'; echo
}
for r in 1 2 3; do
  echo "round $r"
  echo "  slot.cu (quick): $(slot)"
  for m in policy policy_tail; do
    echo "  ptxas $m: -O3 $(call_wall ptxas -O3 -arch=sm_90 -c $W/$m.ptx -o $W/$m.o) s, -O1 $(call_wall ptxas -O1 -arch=sm_90 -c $W/$m.ptx -o $W/$m.o) s"
  done
done
echo "side by side (quick): step, advance, slot, policy, policy_tail's PTX"
for r in 1 2 3; do
  call_side_by_side $W mid "  round $r"
done
