#!/usr/bin/env bash
# Call E: as call D, the two longest quick compiles (the advance module:
# step.cu with its entry; slot.cu, relocatable) at each --Ofast-compile
# level NVRTC takes (mid is the quick tier's; 0 is the optimized tier's),
# front end (cicc) and ptxas apart, three rounds one at a time; then the
# five side by side at mid and at max.
# (As run, the module extraction, the timer and the side-by-side loop were
# written out here; call_lib.sh's call_bundle_modules, call_wall and
# call_side_by_side are the same.)
set -uo pipefail
source bench/proto/call_lib.sh
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L | tee "$OUT/gpu.txt"
W=/tmp/jl
call_bundle_modules .gpudata/bundles/v10-b8192.pcb $W
compile() { # module level [extra]
  local m=$1 level=$2; shift 2
  rm -f $W/t.csv
  nvcc -arch=sm_90 -cubin $(cat $W/$m.opts) --Ofast-compile=$level "$@" -x cu $W/$m.cu \
    -o $W/$m-$level.cubin -time $W/t.csv 2>/dev/null || { echo "failed"; return; }
  tail -n +2 $W/t.csv | awk -F' , ' '$2 ~ /cicc|ptxas/ {printf "%s %.0f ms  ", $2, $(NF-1)}'
  echo "cubin $(stat -c %s $W/$m-$level.cubin) B"
}
for r in 1 2 3; do
  echo "round $r"
  for level in 0 min mid max; do
    echo "  advance $level: $(compile advance $level)"
    echo "  slot    $level: $(compile slot $level -rdc=true)"
  done
done
for level in mid max; do
  for r in 1 2; do
    call_side_by_side $W $level "side by side at $level, round $r"
  done
done
