#!/usr/bin/env bash
# scripts/cupti-graph-calls.sh decides as it says (ctest
# scripts.cupti-graph-calls), with a stand-in for proofc-unittests whose
# runs end, crash (SIGSEGV), hang or fail in a given order: three ended runs
# pass, crashed ones are retried up to 8 runs, a hung run fails at once, as
# does any other failure, and too many crashes are inconclusive (exit 3).
# Usage: CuptiGraphCalls.sh SOURCE_DIR WORK_DIR
set -euo pipefail
script=$1/scripts/cupti-graph-calls.sh
work=$2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "CuptiGraphCalls: $*" >&2; exit 1; }

# The stand-in: each run takes the next line of $work/actions.
cat > "$work/unittests" <<'STAND_IN'
#!/usr/bin/env bash
dir=$(dirname "$0")
action=$(head -n 1 "$dir/actions")
sed -i 1d "$dir/actions"
echo "$CUDA_INJECTION64_PATH $*" >> "$dir/calls"
case $action in
  end) exit 0 ;;
  crash) kill -SEGV $$ ;;
  hang) exec sleep 60 ;;
  fail) exit 1 ;;
esac
STAND_IN
chmod +x "$work/unittests"

# run ACTIONS... : the script's exit status, its output in $work/out.
run() {
  printf '%s\n' "$@" > "$work/actions"
  rm -f "$work/calls" "$work/log"
  local status=0
  CUPTI_GRAPH_CALLS_LIMIT=1 "$script" "$work/unittests" /x/kt.so "$work/log" \
    > "$work/out" 2>&1 || status=$?
  echo "$status"
}
expect() { # STATUS PATTERN RUNS
  [ "$got" = "$1" ] || fail "exit $got, expected $1: $(cat "$work/out")"
  grep -q "$2" "$work/out" || fail "no '$2' in: $(cat "$work/out")"
  [ "$(wc -l < "$work/calls")" = "$3" ] || fail "$(wc -l < "$work/calls") runs, expected $3"
}

got=$(run crash end crash end end end)
expect 0 "ended, 3 runs (2 others killed by a signal" 5
grep -q "^/x/kt.so --gtest_filter=GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce --gtest_also_run_disabled_tests$" "$work/calls" ||
  fail "the child was not run as the check means: $(head -1 "$work/calls")"
grep -q "run 1 killed by a signal (exit 139)" "$work/log" || fail "no crash logged: $(cat "$work/log")"

got=$(run end hang end end)
expect 1 "FAILED: run 2 did not end in 1 s: the graph calls deadlocked" 2

got=$(run end fail end end)
expect 1 "FAILED: run 2 exit 1" 2

got=$(run crash crash crash end crash crash crash crash end)
expect 3 "INCONCLUSIVE: 1 runs ended, 7 killed by a signal" 8

echo "CuptiGraphCalls: all cases as expected"
