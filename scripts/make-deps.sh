#!/usr/bin/env bash
# Copies the runtime's header-only dependencies (fmt, nlohmann-json, CLI11,
# xxhash.h) and GoogleTest (headers + static libraries, built here on Debian;
# they link on Ubuntu 24.04) into .deps/ (git-ignored), so that a machine
# without them — the GPU machine — builds the runtime, proofc-run and the unit
# tests with CMakePresets.json's `gpu-machine` preset (scripts/gpu-build.sh):
#   cmake --preset gpu-machine && cmake --build --preset gpu-machine
# GoogleTest lives apart (.deps/gtest) so that its headers never shadow a
# different GoogleTest installed on the target machine.
# Debian's Open MPI (MPI ranks, docs/scale-out.md) goes to
# .deps/openmpi.tar.gz (about 3.6 MB; 11 MB unpacked): the packages below,
# fetched by `apt-get download`, unpacked by `dpkg -x`, pruned to what a C
# MPI program and mpirun need on one host or over TCP (no docs, man pages,
# static libraries, Fortran, Java, C++ bindings or OpenSHMEM, no network
# components whose libraries are not carried: OFI/libfabric, UCX, PSM/PSM2,
# verbs/openib, netlink), and packed; scripts/gpu-build.sh unpacks it into
# its build directory (a relocatable tree: OPAL_PREFIX) and builds the tools
# with it, scripts/mpirun-carried.sh runs its mpirun. PROOFC_DEPS_MPI=0
# leaves it out.
# DEST is written whole or not at all: everything goes to a temporary
# directory beside it, renamed to DEST at the very end, so a failed or
# interrupted run leaves the previous DEST (or none), never a partial one
# that scripts/prepare-gpu-run.sh and bench/prepare.sh would take as complete.
# scripts/install-deps.sh installs what this needs (patchelf).
# Usage: scripts/make-deps.sh [DEST]   (DEST defaults to <repo>/.deps)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
final=${1:-$root/.deps}
inc=${PROOFC_DEPS_SOURCE_INCLUDE:-/usr/include}
lib=${PROOFC_DEPS_SOURCE_LIB:-/usr/lib/x86_64-linux-gnu}

if [ "${PROOFC_DEPS_MPI:-1}" != 0 ]; then
  command -v patchelf >/dev/null ||
    { echo "make-deps: patchelf is needed (scripts/install-deps.sh, or apt-get install patchelf)" >&2; exit 1; }
fi
mkdir -p "$(dirname "$final")"
dest=$(mktemp -d "$(dirname "$final")/.$(basename "$final").tmp.XXXXXX")
debs=""
cleanup() { rm -rf "$dest" ${debs:+"$debs"}; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$dest/include" "$dest/gtest/include" "$dest/gtest/lib"
copy_dir() {
  [ -d "$inc/$1" ] || { echo "make-deps: missing $inc/$1" >&2; exit 1; }
  cp -r "$inc/$1" "$2/"
}
for dir in fmt nlohmann CLI; do copy_dir "$dir" "$dest/include"; done
cp "$inc/xxhash.h" "$dest/include/"
for dir in gtest gmock; do copy_dir "$dir" "$dest/gtest/include"; done
for a in libgtest.a libgtest_main.a libgmock.a libgmock_main.a; do
  [ -f "$lib/$a" ] || { echo "make-deps: missing $lib/$a" >&2; exit 1; }
  cp "$lib/$a" "$dest/gtest/lib/"
done

# Open MPI 4.1 and the libraries it loads that Ubuntu 24.04 lacks by default
# (libevent, hwloc, PMIx and munge, which PMIx's Open MPI component links).
mpi_packages=(libopenmpi3 libopenmpi-dev openmpi-bin openmpi-common libpmix2
              libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
              libmunge2)
if [ "${PROOFC_DEPS_MPI:-1}" != 0 ]; then
  debs=$(mktemp -d)
  (cd "$debs" && apt-get download -qq "${mpi_packages[@]}" 2>/dev/null) ||
    { echo "make-deps: apt-get download ${mpi_packages[*]} failed" >&2; exit 1; }
  m=$debs/openmpi
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$m"; done
  arch=usr/lib/x86_64-linux-gnu
  ompi=$arch/openmpi/lib/openmpi3
  # The C API needs mpi.h and mpi_portable_platform.h of the headers.
  rm -rf "$m/usr/share/doc" "$m/usr/share/man" "$m/usr/share/lintian" \
    "$m/$arch/fortran" "$m/$arch/openmpi/lib/mpi.jar" \
    "$m/$arch/openmpi/include/"{openmpi,mpif*,mpi-ext.h,*.mod}
  find "$m" -name '*.a' -delete
  rm -f "$m/$arch/"lib{mpi_mpifh,mpi_usempi,mpi_java,mpi_cxx,oshmem,ompitrace,mca_common_ucx,mca_common_verbs,mca_common_ofi}* \
    "$m/$arch/openmpi/lib/"lib{mpi_mpifh,mpi_usempi,mpi_java,mpi_cxx,oshmem,ompitrace}* \
    "$m/$ompi/"*{ofi,ucx,psm,openib,verbs,netlink}* \
    "$m/$ompi/"mca_{spml,sshmem,atomic,scoll,memheap}_* \
    "$m/usr/bin/"{oshmem,shmem,mpif,mpijava,oshcc,oshc++,oshCC,oshfort,mpifort}*
  # Dangling links of what was pruned.
  find "$m" -xtype l -delete
  # Debian's libraries look for each other in /usr (RUNPATH), where the GPU
  # machine has none: point them at their own tree ($ORIGIN), so that a tool
  # linked with it starts without LD_LIBRARY_PATH.
  find "$m" -type f -name '*.so*' | while read -r so; do
    patchelf --print-rpath "$so" 2>/dev/null | grep -q '^/usr/' || continue
    rel=$(realpath --relative-to="$(dirname "$so")" "$m/$arch")
    patchelf --set-rpath "\$ORIGIN/$rel:\$ORIGIN/$rel/openmpi/lib" "$so"
  done
  tar -czf "$dest/openmpi.tar.gz" -C "$debs" openmpi
  echo "make-deps: Open MPI $(du -sh "$m" | cut -f1) unpacked," \
    "$(du -sh "$dest/openmpi.tar.gz" | cut -f1) in $final/openmpi.tar.gz"
fi
# Complete: replace DEST at once (the old one, if any, is moved aside
# first and removed after).
chmod 755 "$dest"
old=""
if [ -e "$final" ]; then
  old=$(mktemp -d "$(dirname "$final")/.$(basename "$final").old.XXXXXX")
  mv "$final" "$old/"
fi
mv "$dest" "$final"
[ -z "$old" ] || rm -rf "$old"
echo "make-deps: $(du -sh "$final" | cut -f1) in $final"
