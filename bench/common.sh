# Sourced by the bench/*/run.sh scripts (not run): what they share, written once.
#
#   bench_device USAGE "$@"   sets device: cuda without arguments, else the
#                             value of --device (cpu or cuda); anything else
#                             prints "usage: USAGE" and exits 2
#   bench_dirs NAME           sets out (OUT, default .out/) and work
#                             (BENCH_WORK, default /tmp/proofc-NAME-bench)
#                             and makes both
#   bench_python_package LOG  sets build to the build tree whose Python
#                             package the bench runs: on cuda (the GPU
#                             machine) builds proofc_python runtime-only with
#                             scripts/gpu-build.sh into PROOFC_GPU_BUILD_DIR
#                             (default build-gpu-device; log in LOG) and puts
#                             CUDA's libraries on LD_LIBRARY_PATH; on cpu
#                             checks that PROOFC_BUILD_DIR (default build/)
#                             has it built
# Both expect root (the repository root) to be set.

bench_device() {
  local usage=$1
  shift
  device=cuda
  case "${1:-}" in
  "") ;;
  --device)
    device=${2:?--device needs cpu or cuda}
    [ "$device" = cpu ] || [ "$device" = cuda ] ||
      { echo "run.sh: --device $device: expected cpu or cuda" >&2; exit 2; }
    ;;
  *) echo "usage: $usage" >&2; exit 2 ;;
  esac
}

bench_dirs() {
  out=${OUT:-$root/.out}
  work=${BENCH_WORK:-/tmp/proofc-$1-bench}
  mkdir -p "$out" "$work"
}

bench_python_package() {
  if [ "$device" = cuda ]; then
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
    "$root/scripts/gpu-build.sh" "$1" proofc_python
  else
    build=${PROOFC_BUILD_DIR:-$root/build}
    ls "$build"/python/proofc/_core*.so > /dev/null 2>&1 ||
      { echo "run.sh: the Python package is not built in $build (cmake --build $build --target proofc_python)" >&2; exit 1; }
  fi
}
