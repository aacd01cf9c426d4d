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
# The folders a call carried packed (scripts/pack-carry.sh), unpacked first.
"$root/scripts/unpack-carry.sh" || exit 1
[ -d "$root/.deps/include" ] ||
  { echo "gpu-build: $root/.deps missing (run scripts/make-deps.sh and scripts/pack-carry.sh here and carry .carry)" >&2; exit 1; }
# Carried bundles must come from this tree's compiler sources (the GPU
# machine cannot recompile them): scripts/compiler-sources-hash.sh says why.
if [ -d "$root/.gpudata/bundles" ]; then
  "$root/scripts/check-gpudata-current.sh" || exit 1
fi

# Open MPI carried as .deps/openmpi.tar.gz (scripts/make-deps.sh): unpacked
# into $build/openmpi (again when the archive is newer), the tools built
# with it (PROOFC_MPI=ON, its header and library named, no wrapper
# compiler); scripts/mpirun-carried.sh runs its mpirun.
mpi=()
if [ -f "$root/.deps/openmpi.tar.gz" ]; then
  if [ ! -d "$build/openmpi" ] || [ "$root/.deps/openmpi.tar.gz" -nt "$build/openmpi" ]; then
    rm -rf "$build/openmpi" && mkdir -p "$build" &&
      tar -xzf "$root/.deps/openmpi.tar.gz" -C "$build" && touch "$build/openmpi" ||
      { echo "gpu-build: cannot unpack .deps/openmpi.tar.gz" >&2; exit 1; }
  fi
  ompi=$build/openmpi/usr/lib/x86_64-linux-gnu
  # An RPATH (not RUNPATH) into the tree: it also finds libmpi's own
  # libraries, so that a plain start (no mpirun) loads without
  # LD_LIBRARY_PATH on a machine that has no Open MPI.
  mpi=(-DPROOFC_MPI=ON -DMPI_SKIP_COMPILER_WRAPPER=ON -DMPI_C_LIB_NAMES=mpi
       -DMPI_C_HEADER_DIR="$ompi/openmpi/include" -DMPI_mpi_LIBRARY="$ompi/libmpi.so.40"
       -DMPIEXEC_EXECUTABLE="$root/scripts/mpirun-carried.sh"
       -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags -Wl,-rpath,$ompi")
  # libmpi's own dependencies (libopen-pal, libevent, hwloc, PMIx) at link time.
  export LIBRARY_PATH=$ompi:$ompi/pmix2/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
fi

{
  if [ ! -f "$build/build.ninja" ]; then
    (cd "$root" && cmake --preset gpu-machine -B "$build" "${mpi[@]}") || exit 1
  fi
  ninja -C "$build" -j"$jobs" "$@"
} > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "gpu-build: BUILD FAILED ($*; log: $log)" >&2
  tail -40 "$log" >&2
  exit 1
fi
