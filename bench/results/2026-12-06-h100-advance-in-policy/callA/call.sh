#!/usr/bin/env bash
# Call A (one GPU): the advance in the policy (proofc compile
# --advance-in-policy, .exp/inpolicy-b<B>.pcb) against bench/prepare.sh's
# bundles of the same compiler without it, V10 at B = 12288 and 8192: a
# guarded first run, the outcomes with the native, emulated and host
# conds, then the session bench's run medians: three rounds interleaved at
# 12288, one at 8192 (the session's device time was short).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/bundles/v10-b12288.pcb
# On a failed or differing run: compute-sanitizer's memcheck and racecheck on
# a small one (5 queries, 10 corruptions), their first errors.
in_policy_sanitizer() {
  command -v compute-sanitizer > /dev/null || { echo "no compute-sanitizer"; return; }
  for tool in memcheck racecheck; do
    timeout 180 compute-sanitizer --tool $tool --error-exitcode 9 "$N/bin/proofc-run" \
      .exp/inpolicy-b8192.pcb --data .gpudata/data/kinship \
      --weights .gpudata/weights/kinship.safetensors --queries 5 --corruptions 10 \
      --device cuda --quiet --outcomes /tmp/o-san.tsv > "$OUT/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool: rc $?"; grep -m 12 -E "=========" "$OUT/sanitizer-$tool.log"
  done
}
if ! timeout 60 "$N/bin/proofc-run" .exp/inpolicy-b12288.pcb --data .gpudata/data/kinship \
  --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 \
  --device cuda --quiet --outcomes /tmp/o-try.tsv > /tmp/e-try 2>&1; then
  echo "in-policy first run FAILED"; tail -20 /tmp/e-try
  in_policy_sanitizer
  exit 1
fi
cmp -s /tmp/ref.tsv /tmp/o-try.tsv && echo "in-policy outcomes byte-identical" || {
  echo "in-policy outcomes DIFFER"
  python3 - <<'PY'
a=open('/tmp/ref.tsv').read().split('\n'); b=open('/tmp/o-try.tsv').read().split('\n')
d=[(i,x,y) for i,(x,y) in enumerate(zip(a,b)) if x!=y]
print(len(a), len(b), 'lines differ:', len(d)); print(d[:5])
PY
  in_policy_sanitizer
}
for c in emulated host; do
  timeout 60 "$N/bin/proofc-run" .exp/inpolicy-b12288.pcb --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 \
    --device cuda --quiet --cond $c --outcomes /tmp/o-$c.tsv > /tmp/e-$c 2>&1 &&
    { cmp -s /tmp/ref.tsv /tmp/o-$c.tsv && echo "in-policy --cond $c byte-identical" || echo "in-policy --cond $c DIFFER"; } ||
    { echo "in-policy --cond $c FAILED"; tail -5 /tmp/e-$c; }
done
call_outcomes inpolicy-b8192 .exp/inpolicy-b8192.pcb
echo "checked at $(($(date +%s) - t0)) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  call_session_median "$S" .gpudata/bundles/v10-b12288.pcb "base-b12288 r$round"
  call_session_median "$S" .exp/inpolicy-b12288.pcb "inpolicy-b12288 r$round"
done
call_session_median "$S" .gpudata/bundles/v10-b8192.pcb "base-b8192 r1"
call_session_median "$S" .exp/inpolicy-b8192.pcb "inpolicy-b8192 r1"
echo "all $(($(date +%s) - t0)) s"
