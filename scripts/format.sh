#!/usr/bin/env bash
# Formats the C++ sources in place with .clang-format (LLVM style), or, with
# --check, lists the files whose formatting differs and fails.
#
#   scripts/format.sh [--check] [FILE...]      (default: every source below)
#
# Sources: the tracked *.cpp, *.h and *.hpp files under lib, include, runtime,
# tools, test/unit, python/src, examples and bench. Left out: generated files
# (never tracked: they live in the build directory) and the device code that
# NVRTC compiles from its text -- every *.cu/*.cuh file and the folders
# lib/Targets/CUDA/Kernels, runtime/src/cuda/kernels, the kernel ABI
# (runtime/contract/include/proofc/contract/kernel_abi.h) and
# test/unit/runtime/cuda/fixtures. That text is embedded verbatim (the bundle's
# "cuda" modules, the runtime's prologue kernel) with each `#include "x.cu"`
# replaced by x.cu's text in order: clang-format's include sorting would put
# advance.cu before engine.cu, whose definitions it uses, and any change
# alters every bundle's kernel text and kernel-cache key. Those folders hold a
# .clang-format with DisableFormat for editors.
#
# Environment: CLANG_FORMAT (default clang-format-22, the toolchain's LLVM,
# else clang-format).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
clang_format=${CLANG_FORMAT:-$(command -v clang-format-22 || command -v clang-format || true)}
"${clang_format:-false}" --version >/dev/null 2>&1 ||
  { echo "format.sh: no working clang-format '${clang_format}' (apt-get install clang-format-22, or set CLANG_FORMAT)" >&2; exit 2; }

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(git ls-files -- lib include runtime tools test/unit python/src examples bench |
    grep -E '\.(cpp|h|hpp)$' |
    grep -v -E '^(lib/Targets/CUDA/Kernels/|runtime/src/cuda/kernels/|test/unit/runtime/cuda/fixtures/|runtime/contract/include/proofc/contract/kernel_abi.h)')
fi
[ ${#files[@]} -gt 0 ] || { echo "format.sh: no sources" >&2; exit 2; }

if [ $check -eq 0 ]; then
  "$clang_format" -i --style=file "${files[@]}"
  exit 0
fi
differ=0
for f in "${files[@]}"; do
  if ! "$clang_format" --style=file "$f" | cmp -s - "$f"; then
    echo "format.sh: $f is not formatted ($clang_format -i $f)"
    differ=$((differ + 1))
  fi
done
[ $differ -eq 0 ] && echo "format.sh: ${#files[@]} files formatted" ||
  echo "format.sh: $differ of ${#files[@]} files not formatted (scripts/format.sh formats them)"
[ $differ -eq 0 ]
