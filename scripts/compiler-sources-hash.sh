#!/usr/bin/env bash
# Prints one SHA-256 over every source a bundle is made from: the compiler
# (dialects/, include/, lib/: the passes, the PTX lowering and the CUDA C++
# templates that `proofc compile` pastes into the bundle) and the contract
# headers pasted with them (runtime/contract/). scripts/prepare-gpu-run.sh
# writes it to .gpudata/compiler-sources.sha256 beside the bundles it
# compiles; the GPU machine's scripts recompute it from the carried tree
# (scripts/check-gpudata-current.sh) and refuse bundles compiled from other
# sources. Why: the GPU machine has no MLIR and cannot recompile, and a
# bundle compiled before a kernel change runs the old kernels under the new
# runtime without a word (it happened: a rollouts fix measured as if it had
# not been made).
#   scripts/compiler-sources-hash.sh
set -euo pipefail
cd "$(dirname "$0")/.."
find dialects include lib runtime/contract -type f -print0 2>/dev/null |
  LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
