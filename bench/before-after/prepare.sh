#!/usr/bin/env bash
# Fills .gpuold/ for bench/before-after/run.sh: the sources of REV (git
# archive) and V10 bundles compiled by REV's proofc (BEFORE/bin/proofc).
# Usage: bench/before-after/prepare.sh REV BEFORE_BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 REV BEFORE_BUILD_DIR" >&2; exit 2; }
rev=$1; before=$2
[ -x "$before/bin/proofc" ] || { echo "prepare: $before/bin/proofc not found" >&2; exit 1; }
rm -rf "$root/.gpuold" && mkdir -p "$root/.gpuold/bundles"
git -C "$root" archive --format=tar.gz -o "$root/.gpuold/old-src.tar.gz" "$rev"
for B in 256 1024 4096; do
  "$before/bin/proofc" compile "$root/examples/v10.mlir" --slots "$B" -o "$root/.gpuold/bundles/v10-b$B.pcb"
done
grep -qx '/.gpuold/' "$root/.git/info/exclude" 2>/dev/null || echo '/.gpuold/' >> "$root/.git/info/exclude"
echo "prepare: .gpuold/ holds $rev's sources and bundles"
