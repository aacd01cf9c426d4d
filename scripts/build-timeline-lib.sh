#!/usr/bin/env bash
# Builds bench/proto/kernel_timeline.cpp, the CUPTI injection library that
# records every kernel, memset and memcpy (CUDA_INJECTION64_PATH=SO), against
# the toolkit's newest activity records. Run on the GPU machine (CUPTI comes
# with its CUDA toolkit), from anywhere:
#   scripts/build-timeline-lib.sh SO
# Used by bench/proto/call_lib.sh (call_timeline_lib) and by
# scripts/gpu-check.sh's run under the injection.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: scripts/build-timeline-lib.sh SO" >&2; exit 2; }
so=$1
cuda=${CUDA_HOME:-/usr/local/cuda}
header=$(find "$cuda/" -name cupti_activity.h | head -1)
library=$(find "$cuda/" -name 'libcupti.so*' | head -1)
[ -n "$header" ] && [ -n "$library" ] ||
  { echo "build-timeline-lib: no CUPTI under $cuda" >&2; exit 1; }
# The newest version of a record, e.g. CUpti_ActivityKernel10.
newest() { grep -o "} $1[0-9]*;" "$header" | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
g++ -O2 -shared -fPIC "$root/bench/proto/kernel_timeline.cpp" -o "$so" \
  -I"$(dirname "$header")" -I"$cuda/include" -L"$(dirname "$library")" -lcupti \
  -Wl,-rpath,"$(dirname "$library")" \
  -DKERNEL_RECORD="$(newest CUpti_ActivityKernel)" \
  -DMEMSET_RECORD="$(newest CUpti_ActivityMemset)" \
  -DMEMCPY_RECORD="$(newest CUpti_ActivityMemcpy)" ||
  { echo "build-timeline-lib: the build failed" >&2; exit 1; }
