#!/usr/bin/env bash
# Configures (once) and builds proofc into ${PROOFC_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${PROOFC_BUILD_TYPE:-Release}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld \
    "$@"
fi
cmake --build "$build" -j "$(nproc)"
