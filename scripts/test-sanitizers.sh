#!/usr/bin/env bash
# Builds proofc with AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan/ and runs the whole test suite there (CTest: the GoogleTest
# suites and the lit suite, whose proofc/proofc-opt are sanitized too). Any
# sanitizer report -- a memory error, a leak, undefined behaviour -- fails the
# test it happens in. Prints the build and test times at the end.
#
#   scripts/test-sanitizers.sh [extra ctest arguments]
#
# Environment: PROOFC_ASAN_BUILD_DIR (default build-asan), PROOFC_BUILD_COMPILER
# (ON; OFF sanitizes the runtime and its tests only, without MLIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_ASAN_BUILD_DIR:-$root/build-asan}
sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

"$root/scripts/install-deps.sh"
# allow_user_poisoning=0: MLIR/LLVM come prebuilt without ASan, but their
# BumpPtrAllocator inlined into our sanitized code poisons slabs that the
# library then fills unpoisoned (a false use-after-poison). Real heap errors
# are still reported. Set before the build too: it runs proofc (the GPU tests'
# bundle). lit passes ASAN_OPTIONS/UBSAN_OPTIONS to its tests.
export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  # -O1 -g1 without NDEBUG: usable stacks, assertions on, a tolerable build.
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_C_FLAGS="$sanitize" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
    -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" \
    -DPROOFC_BUILD_COMPILER="${PROOFC_BUILD_COMPILER:-ON}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
built=$(date +%s)

rc=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@" || rc=$?
done_at=$(date +%s)
echo "test-sanitizers.sh: build $((built - start)) s, tests $((done_at - built)) s"
exit $rc
