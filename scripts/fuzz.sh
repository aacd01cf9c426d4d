#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz in the sanitized build
# (scripts/sanitized-build.sh: clang, ASan + UBSan + libFuzzer coverage; the
# build directory scripts/test-sanitizers.sh shares) and runs each for
# SECONDS (default 60) on a copy of its seed corpus. Fails on any finding: a
# crash, a sanitizer report, a leak, a timeout or an out-of-memory; the
# reproducer is kept under out/fuzz/<target>/ and the log's tail is printed.
# One summary line per target either way.
#
#   scripts/fuzz.sh [SECONDS]
#
# Environment: PROOFC_SANITIZE_BUILD_DIR (default build-sanitize),
# PROOFC_FUZZ_TARGETS (space-separated subset, default all built),
# PROOFC_FUZZ_JOBS (fuzzers run at once, default nproc), PROOFC_FUZZ_RSS_MB
# (default 2048), CXX/CC (a clang; default clang++/clang).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${PROOFC_SANITIZE_BUILD_DIR:-$root/build-sanitize}
export PROOFC_SANITIZE_BUILD_DIR=$build
jobs=${PROOFC_FUZZ_JOBS:-$(nproc)}
rss_mb=${PROOFC_FUZZ_RSS_MB:-2048}
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac

start=$(date +%s)
"$root/scripts/sanitized-build.sh" proofc-fuzzers
echo "fuzz.sh: build took $(( $(date +%s) - start )) s"

all=()
for bin in "$build"/bin/fuzz-*; do
  [ -x "$bin" ] && all+=("$(basename "$bin")")
done
targets=(${PROOFC_FUZZ_TARGETS:-${all[@]}})
[ ${#targets[@]} -gt 0 ] || { echo "fuzz.sh: no fuzz targets in $build/bin" >&2; exit 1; }

# Scratch space in memory where there is some: fuzz-tsv and fuzz-safetensors
# write files for every input.
scratch=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
work=$(mktemp -d "$scratch/proofc-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
symbolizer=$(command -v llvm-symbolizer || ls /usr/lib/llvm-*/bin/llvm-symbolizer 2>/dev/null | tail -1 || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Runs one target; its exit status goes to $work/<target>/rc (wait -n may
# already have reaped it when the results are collected).
run_one() {
  local rc=0
  fuzz_one "$1" || rc=$?
  echo "$rc" >"$work/$1/rc"
}
fuzz_one() {
  local t=$1 dir=$work/$1
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/tmp"
  [ -x "$build/bin/$t" ] || { echo "no such fuzz target: $t" >"$dir/log"; return 1; }
  cp -r "$root/test/fuzz/corpus/$t/." "$dir/corpus/"
  local dict=()
  [ -f "$root/test/fuzz/dict/$t.dict" ] && dict=("-dict=$root/test/fuzz/dict/$t.dict")
  TMPDIR="$dir/tmp" "$build/bin/$t" "$dir/corpus" "${dict[@]}" \
    -max_total_time="$seconds" -rss_limit_mb="$rss_mb" -timeout=10 \
    -artifact_prefix="$dir/artifacts/" -print_final_stats=1 >"$dir/log" 2>&1
}

# Up to $jobs fuzzers at once; each writes its own log.
declare -A pid_of
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  pid_of[$t]=$!
  running=$((running + 1))
done

failed=0
for t in "${targets[@]}"; do
  wait "${pid_of[$t]}" 2>/dev/null || true
  dir=$work/$t
  rc=$(cat "$dir/rc" 2>/dev/null || echo 1)
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/log" 2>/dev/null | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" 2>/dev/null | tail -1 | cut -d' ' -f2 || true)
  corpus=$(find "$dir/corpus" -type f 2>/dev/null | wc -l || true)
  findings=$(find "$dir/artifacts" -type f 2>/dev/null | wc -l || true)
  if [ "$rc" -eq 0 ] && [ "$findings" -eq 0 ] && [ -n "$runs" ]; then
    echo "$t: ok: ${runs} runs in ${seconds} s, coverage ${cov:-?}, corpus ${corpus}"
  else
    failed=1
    keep=$root/out/fuzz/$t
    mkdir -p "$keep"
    cp "$dir/log" "$keep/log"
    find "$dir/artifacts" -type f -exec cp {} "$keep/" \;
    echo "$t: FAILED (exit $rc, $findings reproducer(s) in out/fuzz/$t/):"
    # The report without libFuzzer's progress and coverage lines.
    grep -v -E '^(#[0-9]+|INFO:|[[:space:]]+NEW_FUNC)' "$dir/log" | tail -n 40 | sed 's/^/    /' || true
  fi
done
echo "fuzz.sh: total $(( $(date +%s) - start )) s"
exit $failed
