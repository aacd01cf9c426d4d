#!/usr/bin/env bash
# Builds runtime-only targets (no MLIR) with the carried .deps/, the way every
# GPU-machine script needs them: configures the build directory once with
# CMakePresets.json's `gpu-machine` preset (Release, PROOFC_BUILD_COMPILER=OFF,
# header-only deps and GoogleTest from .deps/; CMake >= 3.25, the GPU
# machine's Ubuntu 24.04 has 3.28), then builds the named targets with ninja.
# Incremental: a second call rebuilds only what changed in the working tree.
#   scripts/gpu-build.sh LOG TARGET...
# Environment: PROOFC_GPU_BUILD_DIR (default build-gpu-device), JOBS (default
# nproc). The cmake/ninja output goes to LOG; on failure its tail is printed
# and the exit status is 1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
[ $# -ge 2 ] || { echo "usage: scripts/gpu-build.sh LOG TARGET..." >&2; exit 2; }
log=$1; shift
jobs=${JOBS:-$(nproc)}
[ -d "$root/.deps/include" ] ||
  { echo "gpu-build: $root/.deps missing (run scripts/make-deps.sh here and carry .deps)" >&2; exit 1; }

{
  if [ ! -f "$build/build.ninja" ]; then
    (cd "$root" && cmake --preset gpu-machine -B "$build") || exit 1
  fi
  ninja -C "$build" -j"$jobs" "$@"
} > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "gpu-build: BUILD FAILED ($*; log: $log)" >&2
  tail -40 "$log" >&2
  exit 1
fi
