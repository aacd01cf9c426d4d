#!/usr/bin/env bash
# Builds and runs every test: GoogleTest suites and the lit/FileCheck suite,
# both through CTest. GPU tests report themselves skipped without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROOFC_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
