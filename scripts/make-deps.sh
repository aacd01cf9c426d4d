#!/usr/bin/env bash
# Copies the runtime's header-only dependencies (fmt, nlohmann-json, CLI11,
# xxhash.h) and GoogleTest (headers + static libraries, built here on Debian;
# they link on Ubuntu 24.04) into .deps/ (git-ignored), so that a machine
# without them — the GPU machine — builds the runtime, proofc-run and the unit
# tests with CMakePresets.json's `gpu-machine` preset (scripts/gpu-build.sh):
#   cmake --preset gpu-machine && cmake --build --preset gpu-machine
# GoogleTest lives apart (.deps/gtest) so that its headers never shadow a
# different GoogleTest installed on the target machine.
# Usage: scripts/make-deps.sh [DEST]   (DEST defaults to <repo>/.deps)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.deps}
inc=${PROOFC_DEPS_SOURCE_INCLUDE:-/usr/include}
lib=${PROOFC_DEPS_SOURCE_LIB:-/usr/lib/x86_64-linux-gnu}

rm -rf "$dest"
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
echo "make-deps: $(du -sh "$dest" | cut -f1) in $dest"
