#!/usr/bin/env bash
# Call D: where the quick tier's longest module (`policy_tail`: the
# policy's PTX, JITted, linked with slot.cu compiled by NVRTC) spends its
# time on the GPU machine, with the toolkit's own compilers (no runtime
# build): slot.cu's front end (cicc) and ptxas at --Ofast-compile=mid, as
# ModuleBuilds compiles it, and ptxas on the two policy PTX modules at the
# JIT's default level (-O3) and at -O1. Three rounds each, one at a time,
# then the five modules' compiles side by side, as a cold setup runs them.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L | tee "$OUT/gpu.txt"
lscpu | grep -E '^(CPU\(s\)|Thread|Model name)'
W=/tmp/jl; rm -rf $W; mkdir -p $W
python3 - .gpudata/bundles/v10-b8192.pcb $W <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for m in j["modules"]:
    ext = "ptx" if m["format"] == "ptx" else "cu"
    open(f"{sys.argv[2]}/{m['name']}.{ext}", "w").write(m["source"])
    open(f"{sys.argv[2]}/{m['name']}.opts", "w").write(" ".join(m.get("options", [])))
PY
slot() { # extra nvcc options
  rm -f $W/t.csv
  nvcc -arch=sm_90 -rdc=true -cubin $(cat $W/slot.opts) --Ofast-compile=mid "$@" -x cu $W/slot.cu \
    -o $W/slot.cubin -time $W/t.csv 2>/dev/null
  tail -n +2 $W/t.csv | awk -F' , ' '{printf "%s=%.0f ms  ", $2, $(NF-1)}'; echo
}
secs() { # the wall seconds of one command (python: no bc there)
  python3 -c 'import subprocess, sys, time; t = time.time(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(f"{time.time() - t:.3f}")' "$@"
}
for r in 1 2 3; do
  echo "round $r"
  echo "  slot.cu (quick): $(slot)"
  for m in policy policy_tail; do
    echo "  ptxas $m: -O3 $(secs ptxas -O3 -arch=sm_90 -c $W/$m.ptx -o $W/$m.o) s, -O1 $(secs ptxas -O1 -arch=sm_90 -c $W/$m.ptx -o $W/$m.o) s"
  done
done
echo "side by side (quick): step, advance, slot, policy, policy_tail's PTX"
for r in 1 2 3; do
  s=$(date +%s%N)
  ( secs nvcc -arch=sm_90 -cubin $(cat $W/step.opts) --Ofast-compile=mid -x cu $W/step.cu -o $W/step.cubin > $W/a1 ) &
  ( secs nvcc -arch=sm_90 -cubin $(cat $W/advance.opts) --Ofast-compile=mid -x cu $W/advance.cu -o $W/advance.cubin > $W/a2 ) &
  ( secs nvcc -arch=sm_90 -rdc=true -cubin $(cat $W/slot.opts) --Ofast-compile=mid -x cu $W/slot.cu -o $W/slot2.cubin > $W/a3 ) &
  ( secs ptxas -O3 -arch=sm_90 $W/policy.ptx -o $W/p.o > $W/a4 ) &
  ( secs ptxas -O3 -arch=sm_90 -c $W/policy_tail.ptx -o $W/pt.o > $W/a5 ) &
  wait
  echo "  round $r: step $(cat $W/a1) advance $(cat $W/a2) slot $(cat $W/a3) policy $(cat $W/a4) policy_tail-ptx $(cat $W/a5); all $(( ($(date +%s%N) - s) / 1000000 )) ms"
done
