#!/usr/bin/env bash
# On the GPU machine, before anything runs a carried bundle: fails (exit 1,
# one line saying what to do) when .gpudata's bundles were compiled from
# other compiler sources than the carried tree's
# (scripts/compiler-sources-hash.sh says why this matters).
#   scripts/check-gpudata-current.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
recorded=$root/.gpudata/compiler-sources.sha256
[ -f "$recorded" ] ||
  { echo "check-gpudata-current: $recorded missing: run scripts/prepare-gpu-run.sh (or bench/prepare.sh) here and carry .gpudata" >&2; exit 1; }
now=$("$root/scripts/compiler-sources-hash.sh")
[ "$(cat "$recorded")" = "$now" ] ||
  { echo "check-gpudata-current: .gpudata's bundles were compiled from other compiler sources than this tree's (lib/, dialects/, include/, runtime/contract/ changed since): run bench/prepare.sh or scripts/prepare-gpu-run.sh here again" >&2; exit 1; }
