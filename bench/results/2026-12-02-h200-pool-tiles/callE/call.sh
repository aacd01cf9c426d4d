#!/usr/bin/env bash
# Call E: NVRTC's --Ofast-compile for the bundle's CUDA modules (step,
# advance, slot). On the CPU machine (its cache disabled) `min` took each
# module's NVRTC a third shorter and `mid` half; what it costs the kernels
# is measured here. ofc-min.pcb and ofc-mid.pcb are V10's B = 8192 bundle
# with the option appended to each CUDA module's options (nothing else
# changed). Per variant, three rounds: a cold run (empty PROOFC_CACHE_DIR
# and CUDA_CACHE_PATH, as bench.py's compile_cold_s) with its modules'
# seconds and its outcome file against the base bundle's; then the session
# bench's medians (warm), two rounds.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
declare -A P=([base]=.gpudata/bundles/v10-b8192.pcb [min]=.gpudata/exp/ofc-min.pcb [mid]=.gpudata/exp/ofc-mid.pcb)
for r in 1 2 3; do
  for v in base min mid; do
    rm -rf /tmp/kc /tmp/jc; mkdir -p /tmp/kc /tmp/jc
    PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc $N/bin/proofc-run ${P[$v]} $W --device cuda --quiet --report /tmp/rep-$v.json --outcomes /tmp/out-$v.tsv > /tmp/run.err 2>&1 || { echo "$v failed"; tail -3 /tmp/run.err; continue; }
    python3 - /tmp/rep-$v.json "$v r$r" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
def find(o, key):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == key:
                return v
            f = find(v, key)
            if f is not None:
                return f
    return None
print(sys.argv[2], 'cold modules_seconds', find(j, 'modules_seconds'), find(j, 'module_compile_seconds'), 'run_seconds', find(j, 'run_seconds'))
PY
    cmp -s /tmp/out-$v.tsv /tmp/out-base.tsv && echo "$v r$r outcomes byte-identical to base" || echo "$v r$r outcomes DIFFER"
  done
done
for r in 1 2; do
  for v in base min mid; do
    call_session_median $N/bin/proofc-session-bench ${P[$v]} "$v r$r"
  done
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
