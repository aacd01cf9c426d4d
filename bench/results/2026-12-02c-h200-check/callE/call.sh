#!/usr/bin/env bash
# Call E: as call D, the two longest quick compiles (the advance module:
# step.cu with its entry; slot.cu, relocatable) at each --Ofast-compile
# level NVRTC takes (mid is the quick tier's; 0 is the optimized tier's),
# front end (cicc) and ptxas apart, three rounds one at a time; then the
# five side by side at max.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L | tee "$OUT/gpu.txt"
W=/tmp/jl; rm -rf $W; mkdir -p $W
python3 - .gpudata/bundles/v10-b8192.pcb $W <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for m in j["modules"]:
    ext = "ptx" if m["format"] == "ptx" else "cu"
    open(f"{sys.argv[2]}/{m['name']}.{ext}", "w").write(m["source"])
    open(f"{sys.argv[2]}/{m['name']}.opts", "w").write(" ".join(m.get("options", [])))
PY
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
secs() {
  python3 -c 'import subprocess, sys, time; t = time.time(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(f"{time.time() - t:.3f}")' "$@"
}
for level in mid max; do
  for r in 1 2; do
    s=$(date +%s%N)
    ( secs nvcc -arch=sm_90 -cubin $(cat $W/step.opts) --Ofast-compile=$level -x cu $W/step.cu -o $W/s.cubin > $W/a1 ) &
    ( secs nvcc -arch=sm_90 -cubin $(cat $W/advance.opts) --Ofast-compile=$level -x cu $W/advance.cu -o $W/a.cubin > $W/a2 ) &
    ( secs nvcc -arch=sm_90 -rdc=true -cubin $(cat $W/slot.opts) --Ofast-compile=$level -x cu $W/slot.cu -o $W/sl.cubin > $W/a3 ) &
    ( secs ptxas -O3 -arch=sm_90 $W/policy.ptx -o $W/p.o > $W/a4 ) &
    ( secs ptxas -O3 -arch=sm_90 -c $W/policy_tail.ptx -o $W/pt.o > $W/a5 ) &
    wait
    echo "side by side at $level, round $r: step $(cat $W/a1) advance $(cat $W/a2) slot $(cat $W/a3) policy $(cat $W/a4) policy_tail-ptx $(cat $W/a5); all $(( ($(date +%s%N) - s) / 1000000 )) ms"
  done
done
