#!/usr/bin/env bash
# Builds everything with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/sanitized-build.sh: the build directory the fuzz targets share)
# and runs the whole test suite there: CTest runs the GoogleTest suites and
# the lit suite, whose proofc/proofc-opt/proofc-run are sanitized too. Any
# sanitizer report -- a memory error, a leak, undefined behaviour -- fails
# the test it happens in. Prints the build and test times at the end.
#
#   scripts/test-sanitizers.sh [extra ctest arguments]
#
# Environment: PROOFC_SANITIZE_BUILD_DIR (default build-sanitize),
# PROOFC_BUILD_COMPILER (ON; OFF sanitizes the runtime and its tests only,
# without MLIR), PROOFC_TEST_JOBS (tests at once, default nproc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_SANITIZE_BUILD_DIR:-$root/build-sanitize}
export PROOFC_SANITIZE_BUILD_DIR=$build

# The sanitizers' options for the tests are the `sanitize` test preset's
# (CMakePresets.json): allow_user_poisoning=0 because MLIR/LLVM come
# prebuilt without ASan, but their BumpPtrAllocator inlined into our
# sanitized code poisons slabs that the library then fills unpoisoned (a
# false use-after-poison); real heap errors are still reported. lit passes
# ASAN_OPTIONS/UBSAN_OPTIONS to its tests. The build, which runs proofc (the
# GPU tests' bundle), uses scripts/sanitized-build.sh's.
symbolizer=$(command -v llvm-symbolizer || ls /usr/lib/llvm-*/bin/llvm-symbolizer 2>/dev/null | tail -1 || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

start=$(date +%s)
"$root/scripts/sanitized-build.sh"
built=$(date +%s)

rc=0
(cd "$root" && ctest --preset sanitize --test-dir "$build" \
  -j "${PROOFC_TEST_JOBS:-$(nproc)}" "$@") || rc=$?
done_at=$(date +%s)
echo "test-sanitizers.sh: build $((built - start)) s, tests $((done_at - built)) s"
exit $rc
