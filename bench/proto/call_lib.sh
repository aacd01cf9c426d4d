# call_lib.sh - the helpers every GPU call script repeated (sourced, not run).
#
# A call script under bench/results/<date>/callX/call.sh runs on the GPU
# machine from the repository root, with .gpudata and .deps carried and $OUT
# its output folder. Until 2026-12-01 each script copied the CUPTI
# library's build line, the session bench's median helper and the runtime
# build line (duplicates found 47 such pairs); they are defined here once:
#
#   source bench/proto/call_lib.sh
#   call_start proofc-run proofc-session-bench  # all of the preamble below
#   call_env                          # PATH, LD_LIBRARY_PATH, the kernel cache
#   call_build build-gpu-device proofc-run proofc-session-bench
#   call_build_pair build-gpu-device proofc-session-bench  # and oldtree's
#   call_base_tree PATCH proofc-run   # this tree less PATCH, in $BASE
#   call_timeline_lib /tmp/kt.so      # bench/proto/kernel_timeline.cpp
#   call_trace BENCH BUNDLE LABEL CALLS LINES  # a CUPTI timeline of CALLS calls
#   call_session_median BENCH BUNDLE LABEL [session-bench flags...]
#   call_reference BUNDLE             # V10's outcomes into /tmp/ref.tsv
#   call_outcomes LABEL BUNDLE [proofc-run flags...]  # against /tmp/ref.tsv
#   call_cold_run LABEL BINARY TIERS     # V10 at B = 8192, caches empty
#   call_cold_session LABEL BINARY TIERS # the same, 300 Session calls
#   call_bundle_modules BUNDLE DIR       # its modules as files, for nvcc
#   call_wall CMD...                     # CMD's wall seconds
#   call_side_by_side DIR LEVEL LABEL    # the five quick compiles at once
#   call_whole_split LABEL BUNDLE [VAR=VALUE...]  # fb15k-237's whole split
#   call_same_results LABEL...        # their results against the first's
#   call_pack_whole_splits NAME LABEL...  # their reports into $OUT/NAME.tar.gz
#   call_variant_rounds BASE DIR VARIANT...  # a bundle's variants against it
#   call_gpu_check                    # scripts/gpu-check.sh
#   call_gpu_tests LOG FILTER BUNDLE...  # proofc-unittests' GPU tests on BUNDLEs
#   call_headline ARG...              # bench/run.sh ARG...
#   python3 bench/proto/session_compare.py $OUT TAG...  # "new TAG" vs "old TAG"
#   python3 bench/proto/timeline_runs.py TIMELINE.csv LABEL [--launches]
#
# Each function prints what failed and returns non-zero; the scripts go on
# to their next measurement (set -u, not -e), as they always did.

# The CUDA toolkit's binaries and libraries; one kernel cache for the call.
call_env() {
  export PATH=/usr/local/cuda/bin:$PATH
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PROOFC_CACHE_DIR=${PROOFC_CACHE_DIR:-/tmp/pc}
}

# call_start TARGET...: what every call began with: call_env, the GPU's
# name into $OUT/gpu.txt, $t0 the call's start, and the runtime's TARGETs
# built into $N (build-gpu-device; its log in $OUT), with the seconds that
# took. Returns non-zero when the build failed (`call_start ... || exit 1`).
call_start() {
  call_env
  nvidia-smi -L | tee "$OUT/gpu.txt"
  t0=$(date +%s)
  N=build-gpu-device
  call_build "$N" "$@" || return 1
  echo "built at $(($(date +%s) - t0)) s"
}

# call_build DIR TARGET...: scripts/gpu-build.sh into DIR, relative to the
# repository root (its log in
# $OUT/build-<dir>.log), 16 jobs.
call_build() {
  local dir=$1
  shift
  local log=$OUT/build-$(basename "$dir").log
  if ! PROOFC_GPU_BUILD_DIR=$PWD/$dir JOBS=${JOBS:-16} scripts/gpu-build.sh "$log" "$@" \
    > /dev/null 2>&1; then
    echo "build of $dir failed:"
    tail -30 "$log"
    return 1
  fi
}

# call_build_pair DIR TARGET...: call_build in this tree and in
# .gpudata/oldtree (`git archive` of the revision compared against, .deps
# linked into it; its log in $OUT/old/), side by side with 8 jobs each.
call_build_pair() {
  local dir=$1 rc=0
  ln -sfn "$PWD/.deps" .gpudata/oldtree/.deps
  mkdir -p "$OUT/old"
  JOBS=8 call_build "$@" &
  local new=$!
  (cd .gpudata/oldtree && JOBS=8 OUT=$OUT/old call_build "$@") &
  local old=$!
  wait $new || rc=1
  wait $old || rc=1
  [ -d "$dir" ] && [ -d ".gpudata/oldtree/$dir" ] || rc=1
  return $rc
}

# call_base_tree PATCH TARGET...: the runtime a call compares this tree's
# against where the change is a patch rather than a revision
# (call_build_pair's oldtree): a copy of this tree (its build folders
# left out) in $BASE (/tmp/base unless set), PATCH (a path relative to
# the repository root) reverse-applied there, its TARGETs built into
# $BASE/build-gpu-device (its log in $OUT/base/). The calls of
# 2026-12-04c repeated this.
call_base_tree() {
  local patch=$PWD/$1
  shift
  BASE=${BASE:-/tmp/base}
  rm -rf "$BASE" && mkdir -p "$BASE" || return 1
  tar --exclude='./build-gpu-*' -cf - . | tar -xf - -C "$BASE" || return 1
  if ! (cd "$BASE" && patch -R -p1 -s < "$patch"); then
    echo "$patch does not reverse-apply"
    return 1
  fi
  mkdir -p "$OUT/base"
  (cd "$BASE" && OUT=$OUT/base call_build build-gpu-device "$@") || return 1
  echo "base built at $(($(date +%s) - t0)) s"
}

# call_timeline_lib SO: the CUPTI injection library (kernel_timeline.cpp),
# scripts/build-timeline-lib.sh.
call_timeline_lib() {
  scripts/build-timeline-lib.sh "$1" || { echo "no timeline library"; return 1; }
}

# call_trace BENCH BUNDLE LABEL CALLS LINES: CALLS session bench calls of
# BUNDLE with kinship's data and weights under the CUPTI library
# /tmp/kt.so (call_timeline_lib first), the timeline as /tmp/tl-LABEL.csv
# and in $OUT, the last LINES of timeline_runs.py's report printed (each
# run's sums and the last run's launches).
call_trace() {
  local bench=$1 bundle=$2 label=$3 calls=$4 lines=$5
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$label.csv timeout 90 \
    "$bench" "$bundle" --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors --calls "$calls" \
    > /dev/null 2>&1 || echo "traced $label failed"
  python3 bench/proto/timeline_runs.py /tmp/tl-$label.csv "$label" --launches 2>&1 | tail -"$lines"
  cp /tmp/tl-$label.csv "$OUT/"
}

# call_session_median BENCH BUNDLE LABEL [flags...]: one session bench of
# --calls 15 (unless the flags give --calls) with kinship's data and
# weights from .gpudata, printing "LABEL run X call Y ms" (the medians),
# its JSON kept as $OUT/sb-<LABEL, each character but [A-Za-z0-9._-] a
# dash>.json; bench/proto/session_compare.py compares "new T" with "old T".
call_session_median() {
  local bench=$1 bundle=$2 label=$3
  shift 3
  local json=$OUT/sb-${label//[^A-Za-z0-9._-]/-}.json
  if timeout 120 "$bench" "$bundle" --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors --calls 15 "$@" \
    > "$json" 2> /tmp/sb.err; then
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" "$json" "$label"
  else
    echo "$label: session bench failed"
    tail -2 /tmp/sb.err
    return 1
  fi
}

# call_v10 BUNDLE OUTCOMES [flags...]: V10 (kinship's 100 x 100, the
# trained policy) on BUNDLE with $N's proofc-run and FLAGs on the GPU, its
# outcome file written to OUTCOMES.
call_v10() {
  local bundle=$1 outcomes=$2
  shift 2
  "$N/bin/proofc-run" "$bundle" --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors --queries 100 \
    --corruptions 100 --device cuda --quiet "$@" --outcomes "$outcomes"
}

# call_reference BUNDLE: the call's reference outcomes (/tmp/ref.tsv), which
# call_outcomes compares with.
call_reference() {
  call_v10 "$1" /tmp/ref.tsv > /tmp/e-ref 2>&1 ||
    { echo "reference run failed"; tail -4 /tmp/e-ref; return 1; }
}

# call_outcomes LABEL BUNDLE [flags...]: call_v10 of BUNDLE, its outcome
# file compared with /tmp/ref.tsv: prints "LABEL outcomes byte-identical"
# or "... DIFFER", or "LABEL FAILED" and the run's last lines.
call_outcomes() {
  local label=$1 bundle=$2
  shift 2
  if ! call_v10 "$bundle" "/tmp/o-$label.tsv" "$@" > "/tmp/e-$label" 2>&1; then
    echo "$label FAILED"
    tail -4 "/tmp/e-$label"
    return 1
  fi
  if cmp -s /tmp/ref.tsv "/tmp/o-$label.tsv"; then
    echo "$label outcomes byte-identical"
  else
    echo "$label outcomes DIFFER"
    return 1
  fi
}

# The cold start (docs/performance.md, "The two-tier cold start"): V10 at
# B = 8192 (.gpudata/bundles/v10-b8192.pcb, kinship's 100 x 100) with the
# kernel cache and the driver's compute cache emptied first.
call_cold_bundle=.gpudata/bundles/v10-b8192.pcb

# call_cold TIERS BINARY ARG...: BINARY (proofc-run or the session bench)
# on the cold-start bundle and kinship, the caches emptied, with
# PROOFC_COMPILE_TIERS=TIERS and ARGs; its stderr in /tmp/e.
call_cold() {
  local tiers=$1 binary=$2
  shift 2
  rm -rf /tmp/kc /tmp/jc
  mkdir -p /tmp/kc /tmp/jc
  PROOFC_COMPILE_TIERS=$tiers PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
    timeout 120 "$binary" $call_cold_bundle --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors "$@" 2> /tmp/e
}

# call_cold_run LABEL BINARY TIERS: one cold proofc-run (BINARY), its
# outcomes kept as /tmp/o-LABEL.bin (compare them with cmp); prints the
# process's wall time and the report's total, setup, modules (and tier),
# the optimized tier's time when it was done by the report (else -1), the
# run and each module's compile.
call_cold_run() {
  local label=$1 binary=$2 tiers=$3 s e
  s=$(date +%s.%N)
  call_cold "$tiers" "$binary" --queries 100 --corruptions 100 --device cuda \
    --quiet --report /tmp/r.json --outcomes "/tmp/o-$label.bin" ||
    { echo "$label failed"; tail -3 /tmp/e; return 1; }
  e=$(date +%s.%N)
  python3 - /tmp/r.json "$label" "$s" "$e" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); d = j["backend_details"]; t = j["timings"]
m = {k: round(v, 3) for k, v in d["module_compile_seconds"].items()}
print(f"{sys.argv[2]:10} process {float(sys.argv[4]) - float(sys.argv[3]):.3f} s, total {t['total_seconds']:.3f}, "
      f"setup {t['setup_seconds']:.3f}, modules {d['modules_seconds']:.3f} ({d.get('kernels_tier', 'optimized')}), "
      f"optimized after {d.get('optimized_modules_seconds') or -1:.3f}, run {t['run_seconds']*1e3:.2f} ms, "
      f"mrr {j['metrics']['both']['mrr']:.6f}, {m}")
PY
}

# call_cold_session LABEL BINARY TIERS: the session bench (BINARY) cold,
# 300 calls: the first call, how many calls ran the quick kernels (above 5
# ms of run) and what they took, the runs after them, all 300 calls.
call_cold_session() {
  local label=$1 binary=$2 tiers=$3
  call_cold "$tiers" "$binary" --calls 300 > /tmp/sb.json ||
    { echo "$label failed"; tail -3 /tmp/e; return 1; }
  python3 - /tmp/sb.json "$label" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); c = j["calls"]
quick = [i for i, x in enumerate(c) if x["run_ms"] > 5]
last = quick[-1] + 1 if quick else 0
after = sorted(x["run_ms"] for x in c[last:])
t = sum(x["call_ms"] for x in c[:last])
print(f"{sys.argv[2]:10} open {j['open_s']:.3f} s, first call {j['first_call_ms']:.1f} ms (run {j['first_run_ms']:.2f} ms); "
      f"{last} calls above 5 ms of run ({t:.0f} ms of calls); runs after {after[len(after)//2]:.3f} ms (median); "
      f"all 300 calls {sum(x['call_ms'] for x in c):.0f} ms")
PY
}

# The cold start's compiles with the toolkit's own compilers (nvcc, ptxas),
# outside the runtime: where a quick module's time goes.
#
# call_bundle_modules BUNDLE DIR: each module of BUNDLE as DIR/<name>.cu or
# .ptx, its options in DIR/<name>.opts.
call_bundle_modules() {
  rm -rf "$2"
  mkdir -p "$2"
  python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for m in j["modules"]:
    ext = "ptx" if m["format"] == "ptx" else "cu"
    open(f"{sys.argv[2]}/{m['name']}.{ext}", "w").write(m["source"])
    open(f"{sys.argv[2]}/{m['name']}.opts", "w").write(" ".join(m.get("options", [])))
PY
}

# call_wall CMD...: CMD's wall seconds, its output dropped (python: the GPU
# machine has no bc).
call_wall() {
  python3 -c 'import subprocess, sys, time; t = time.time(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(f"{time.time() - t:.3f}")' "$@"
}

# call_side_by_side DIR LEVEL LABEL: V10's five quick-tier compiles at once,
# as a cold setup runs them (DIR from call_bundle_modules): step, advance
# and slot.cu (relocatable) by nvcc at --Ofast-compile=LEVEL, the two
# policy PTX modules by ptxas at the JIT's default -O3; prints each one's
# seconds and all of them.
call_side_by_side() {
  local w=$1 level=$2 label=$3 s
  s=$(date +%s%N)
  (call_wall nvcc -arch=sm_90 -cubin $(cat $w/step.opts) --Ofast-compile=$level -x cu $w/step.cu -o $w/s.cubin > $w/a1) &
  (call_wall nvcc -arch=sm_90 -cubin $(cat $w/advance.opts) --Ofast-compile=$level -x cu $w/advance.cu -o $w/a.cubin > $w/a2) &
  (call_wall nvcc -arch=sm_90 -rdc=true -cubin $(cat $w/slot.opts) --Ofast-compile=$level -x cu $w/slot.cu -o $w/sl.cubin > $w/a3) &
  (call_wall ptxas -O3 -arch=sm_90 $w/policy.ptx -o $w/p.o > $w/a4) &
  (call_wall ptxas -O3 -arch=sm_90 -c $w/policy_tail.ptx -o $w/pt.o > $w/a5) &
  wait
  echo "$label: step $(cat $w/a1) advance $(cat $w/a2) slot $(cat $w/a3) policy $(cat $w/a4) policy_tail-ptx $(cat $w/a5); all $(( ($(date +%s%N) - s) / 1000000 )) ms"
}

# call_whole_split LABEL BUNDLE [VAR=VALUE...]: fb15k-237's whole test split
# with every filtered corruption (bench/scale-out/run.sh one, B = 16384:
# .fbdata from bench/scale-out/prepare.sh fb15k-237, its data unpacked on
# first use) on BUNDLE, cold (a kernel cache of its own, as every
# whole-split row of docs/performance.md was measured), with the VARs set
# for the run (CUDA_INJECTION64_PATH=..., say); its reports under
# $OUT/LABEL, printing "LABEL wall ... rss GiB ... timings {...}" and the
# call's seconds so far. The calls of 2026-12-03 and 2026-12-04 repeated
# this loop in each script.
call_whole_split() {
  local label=$1 bundle=$2
  shift 2
  [ -d .fbdata/data ] || tar -xzf .fbdata/fb.tar.gz -C .fbdata
  cp "$bundle" .fbdata/bundles/v10-b16384.pcb
  rm -rf "/tmp/pc-$label"
  if ! env PROOFC_CACHE_DIR="/tmp/pc-$label" OUT="$OUT/$label" "$@" \
    timeout "${CALL_WHOLE_SPLIT_TIMEOUT:-150}" bash bench/scale-out/run.sh one \
    > "/tmp/fb-$label.log" 2>&1; then
    echo "fb $label failed"
    tail -5 "/tmp/fb-$label.log"
  fi
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'wall', j['wall_seconds'], 'rss GiB', j['max_rss_gib'], 'timings', json.dumps(j.get('timings')))" \
    "$OUT/$label/scale-out/one.json" "$label" 2>/dev/null
  echo "fb $label at $(($(date +%s) - t0)) s"
}

# call_same_results LABEL...: each whole split's results (one.json's
# "results": metrics, ranks' tallies) against the first LABEL's.
call_same_results() {
  python3 - "$OUT" "$@" <<'PY'
import json, sys
out, labels = sys.argv[1], sys.argv[2:]
def results(label):
    try:
        return json.load(open(f"{out}/{label}/scale-out/one.json")).get("results")
    except Exception as e:
        print("missing", label, e)
first = results(labels[0])
for label in labels[1:]:
    r = results(label)
    print(f"results {label} == {labels[0]}:", r is not None and r == first)
PY
}

# call_pack_whole_splits NAME LABEL...: the LABELs' reports (outcome files
# dropped) into $OUT/NAME.tar.gz, their folders removed.
call_pack_whole_splits() {
  local name=$1 label
  shift
  for label in "$@"; do rm -f "$OUT/$label"/scale-out/*.tsv; done
  tar -czf "$OUT/$name.tar.gz" -C "$OUT" "$@" 2>/dev/null
  (cd "$OUT" && rm -rf "$@")
}

# call_variant_rounds BASE VARIANT_DIR VARIANT...: a bundle's variants
# (VARIANT_DIR/VARIANT.pcb, made here from BASE) measured against BASE:
# call_start, each variant's V10 outcomes against BASE's, the session
# bench's run medians of BASE ("base rN") and every variant ("VARIANT rN"),
# three rounds interleaved, then CUPTI timelines of each
# (bench/proto/timeline_runs.py --launches), the session benches' JSON and
# timelines packed as $OUT/sb.tar.gz. The calls of 2026-12-05d and
# 2026-12-05e repeated this.
call_variant_rounds() {
  local base=$1 dir=$2 v b round
  shift 2
  call_start proofc-run proofc-session-bench || return 1
  call_reference "$base"
  for v in "$@"; do call_outcomes "$v" "$dir/$v.pcb"; done
  echo "checked at $(($(date +%s) - t0)) s"
  local S=$N/bin/proofc-session-bench
  for round in 1 2 3; do
    call_session_median "$S" "$base" "base r$round"
    for v in "$@"; do call_session_median "$S" "$dir/$v.pcb" "$v r$round"; done
  done
  echo "measured at $(($(date +%s) - t0)) s"
  call_timeline_lib /tmp/kt.so
  for v in base "$@"; do
    b=$dir/$v.pcb
    [ "$v" = base ] && b=$base
    CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$v.csv \
      timeout 60 "$S" "$b" --data .gpudata/data/kinship \
      --weights .gpudata/weights/kinship.safetensors --calls 3 \
      > /dev/null 2>&1 || echo "traced $v failed"
    python3 bench/proto/timeline_runs.py /tmp/tl-$v.csv "$v" --launches 2>&1 | tail -3
  done
  mkdir -p /tmp/keep
  rm -f /tmp/keep/*
  mv "$OUT"/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null
  tar -czf "$OUT/sb.tar.gz" -C /tmp/keep . 2>/dev/null
  echo "all $(($(date +%s) - t0)) s"
}

# call_gpu_check: scripts/gpu-check.sh on this tree (its logs in
# /tmp/chk/check), the GPU's name into $OUT/gpu.txt, its exit status and
# the lines that say what passed. The gpu-check calls since 2026-12-05
# repeated this.
call_gpu_check() {
  call_env
  nvidia-smi -L | tee "$OUT/gpu.txt"
  t0=$(date +%s)
  local R=/tmp/chk
  rm -rf $R
  mkdir -p $R
  OUT=$R/check JOBS=16 timeout 540 scripts/gpu-check.sh > $R/gpu-check.txt 2>&1
  echo "gpu-check rc=$? at $(($(date +%s) - t0)) s"
  grep -E "PASSED|SKIPPED|FAILED|gpu-check|cupti" $R/gpu-check.txt | head -30
}

# call_gpu_tests LOG FILTER BUNDLE...: call_start with proofc-unittests
# (and proofc-run, proofc-merge, which its tests run; without gpu-check's
# CUPTI runs), then proofc-unittests run with --gtest_filter=FILTER on the compiled BUNDLEs (under .gpudata/
# bundles/) alone, the optimized tier, 200 s at most; the log as $OUT/LOG,
# its verdict lines printed.
call_gpu_tests() {
  local log=$1 filter=$2 bundles="" b
  shift 2
  call_start proofc-unittests proofc-run proofc-merge || return 1
  for b in "$@"; do bundles+="$PWD/.gpudata/bundles/$b "; done
  PROOFC_SHARED_DIR=$PWD/.gpudata PROOFC_COMPILE_TIERS=off PROOFC_TEST_BUNDLE=$bundles \
    timeout 200 "$N/bin/proofc-unittests" --gtest_filter="$filter" \
    > "$OUT/$log" 2>&1
  echo "rc $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|^\[ (ptx|rollouts)" "$OUT/$log" | head -40
  echo "all $(($(date +%s) - t0)) s"
}

# call_headline ARG...: bench/run.sh with ARGs (the issue's ratio: V10
# against the torch port), the GPU's name into $OUT/gpu.txt, its tables.
call_headline() {
  call_env
  nvidia-smi -L | tee "$OUT/gpu.txt"
  t0=$(date +%s)
  bash bench/run.sh "$@" 2>&1 | tail -26
  echo "all $(($(date +%s) - t0)) s"
}
