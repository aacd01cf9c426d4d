#!/usr/bin/env bash
# Installs clang and its sanitizer runtimes where missing, configures (once)
# with CMakePresets.json's `sanitize` preset and builds: clang with
# AddressSanitizer + UndefinedBehaviorSanitizer over every translation unit,
# plus libFuzzer's coverage instrumentation (-DPROOFC_FUZZ=ON,
# test/fuzz/FuzzFlags.cmake), so that ONE build directory serves both the
# sanitized test suite (scripts/test-sanitizers.sh) and the fuzz targets
# (scripts/fuzz.sh). -O1 with line tables and without NDEBUG: usable stacks,
# assertions on, a tolerable build time; lld links; no Python package (the
# preset says why).
#
#   scripts/sanitized-build.sh [TARGET...]     (default: all)
#
# Environment: PROOFC_SANITIZE_BUILD_DIR (default build-sanitize), CXX/CC (a
# clang; default clang++/clang), PROOFC_BUILD_COMPILER (ON; OFF builds the
# runtime, its tests and the parser fuzz targets without MLIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_SANITIZE_BUILD_DIR:-$root/build-sanitize}

"$root/scripts/install-deps.sh"
cxx=${CXX:-clang++}
cc=${CC:-clang}
# libFuzzer and the sanitizer runtimes ship in Debian's libclang-rt-<N>-dev
# (clang itself does not pull it in).
if ! command -v "$cxx" >/dev/null ||
   ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char *, long) { return 0; }' |
     "$cxx" -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  echo "sanitized-build: installing clang and its sanitizer runtimes (clang libclang-rt-dev)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-dev >/dev/null
fi

# The build runs the sanitized proofc (the GPU tests' bundle): see
# scripts/test-sanitizers.sh for why user poisoning is off.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1}
if [ ! -f "$build/build.ninja" ]; then
  (cd "$root" && cmake --preset sanitize -B "$build" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DPROOFC_BUILD_COMPILER="${PROOFC_BUILD_COMPILER:-ON}" >/dev/null)
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" "${targets[@]}" -j "$(nproc)"
