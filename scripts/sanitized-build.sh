#!/usr/bin/env bash
# Configures (once) and builds the sanitized build: clang with AddressSanitizer
# + UndefinedBehaviorSanitizer over every translation unit, plus libFuzzer's
# coverage instrumentation (-DPROOFC_FUZZ=ON, test/fuzz/FuzzFlags.cmake), so
# that ONE build directory serves both the sanitized test suite
# (scripts/test-sanitizers.sh) and the fuzz targets (scripts/fuzz.sh).
# -O1 with line tables and without NDEBUG: usable stacks, assertions on, a
# tolerable build time; lld links.
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
  # The Python package stays out: an ASan-instrumented extension cannot be
  # loaded by an uninstrumented python3 (the runtime must come first); its
  # C++ is the runtime's, which the sanitized suite covers.
  # -DPROOFC_MPI=OFF: Open MPI's own allocations outlive MPI_Finalize and
  # LeakSanitizer would report them in every rank; this build checks the
  # tools built without MPI instead (the `mpi` lit tests skip here, and run
  # in scripts/test.sh's build).
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROOFC_PYTHON=OFF \
    -DPROOFC_MPI=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fuse-ld=lld" \
    -DPROOFC_FUZZ=ON \
    -DPROOFC_BUILD_COMPILER="${PROOFC_BUILD_COMPILER:-ON}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" "${targets[@]}" -j "$(nproc)"
