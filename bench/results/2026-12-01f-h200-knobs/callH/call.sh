#!/usr/bin/env bash
# Call H (on call G's machine, warm, its build kept): truly cold compiles of
# four bundles, each run with an empty kernel cache and an empty driver
# JIT cache (CUDA_CACHE_PATH), three rounds: row 49's 3xF16 step bundle at
# B = 8192 against the 3xTF32 one (whose policy kernel row 49 did not
# change), and the persistent bundles (B = 256) likewise; the run's
# compile_seconds and each module's compile (backend_details).
source bench/proto/call_lib.sh; call_env; N=build-gpu-device
[ -x $N/bin/proofc-run ] || { echo "no build"; exit 1; }
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
for r in 1 2 3; do for v in v10-b8192 v10-step-b8192-tf32 v10-b256 v10-persistent-tf32; do
  PROOFC_CACHE_DIR=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d) $N/bin/proofc-run .gpudata/bundles/$v.pcb $W --device cuda --quiet --report /tmp/r.json >/dev/null 2>&1
  python3 -c "import json;j=json.load(open('/tmp/r.json'));print('$v r$r', j['timings']['compile_seconds'], (j.get('backend_details') or {}).get('module_compile_seconds'))"
done; done
