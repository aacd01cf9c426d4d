#!/usr/bin/env bash
# Installs the dependencies, configures (once) with CMakePresets.json's
# `default` preset and builds everything into ${PROOFC_BUILD_DIR:-build}.
# The README's scripts/quickstart.sh and scripts/test.sh (CI's test phase)
# start here.
#
#   scripts/build.sh [CMAKE_ARG...]
#
# CMAKE_ARGs go to the first configure only, after the preset's, e.g.
# -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
# (CMake also takes the launchers from the environment variables of the same
# names). PROOFC_BUILD_TYPE overrides the preset's Release.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  (cd "$root" && cmake --preset default -B "$build" \
    ${PROOFC_BUILD_TYPE:+-DCMAKE_BUILD_TYPE="$PROOFC_BUILD_TYPE"} "$@")
fi
cmake --build "$build" -j "$(nproc)"
