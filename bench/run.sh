#!/usr/bin/env bash
# THE bench command. Run ON the GPU machine, from the repository root, after
# bench/prepare.sh here (carry .deps and .gpudata):
#   bench/run.sh [bench.py options, e.g. --no-torch, --large-queries 100]
# Builds proofc-run runtime-only (scripts/gpu-build.sh, the build directory
# of scripts/gpu-check.sh), then runs python3 -m bench.bench, which keeps the
# whole call within BENCH_BUDGET_S (default 570 s, for a 600 s call; the
# build's time is taken off). Writes under $OUT (default .out/):
#   bench-results.json   the results (schema: bench/README.md)
#   bench-logs.tar.gz    every run's log, report and outcomes, table.txt, build.log
# and prints the table last on stdout. Exit status: 0 when every row ran and
# every agreement check passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
start=$(date +%s)
out=${OUT:-$root/.out}
work=${BENCH_WORK:-/tmp/proofc-bench}
budget=${BENCH_BUDGET_S:-570}
mkdir -p "$out"
rm -rf "$work"
mkdir -p "$work/logs"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

pack() {
  { date; uname -a; nvidia-smi; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  } > "$work/logs/env.log" 2>&1
  cp "$work/build.log" "$work/logs/" 2>/dev/null
  tar -czf "$out/bench-logs.tar.gz" -C "$work" logs
}

echo "bench: building proofc-run ($(nproc) cores)"
if ! scripts/gpu-build.sh "$work/build.log" proofc-run; then
  pack
  exit 1
fi
built=$(( $(date +%s) - start ))
echo "bench: proofc-run built in $built s"
# bench/prepare.sh packs the large workload's data: unpack it once.
for packed in .gpudata/data/*.tar.gz; do
  [ -e "$packed" ] || continue
  [ -d "${packed%.tar.gz}" ] || tar -xzf "$packed" -C .gpudata/data || {
    echo "bench: cannot unpack $packed" >&2
    pack
    exit 1
  }
done
python3 -m bench.bench --work "$work" --json "$out/bench-results.json" \
  --budget-s $(( budget - built )) "$@"
rc=$?
pack
exit $rc
