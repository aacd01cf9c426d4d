#!/usr/bin/env bash
# Call A: advance.cu's one walk over ThreadWalk / WarpWalk and memo.cu's one
# probe protocol (probeEntries over ThreadProbe / WarpProbe), "new",
# against ada7f48's bundles, "old" (the step and advance cubins at B = 256,
# 8192, 12288 byte-identical to old's except the advance-engine's, whose
# ptxas sm_90 registers are unchanged: 56 at 8192 and 12288, 63 against 64
# at 16384; slot.cu's function 8 bytes more of spills). V10 (kinship
# 100 x 100, the trained policy): outcomes of every bundle against old
# B = 8192's; session bench medians, three rounds, interleaved; then the
# clock counters after row 51 (bench/proto/clock_step.py on new B = 12288
# and 8192: the advance-engine's parts per step; clock_policy.py on new
# 12288: the policy tiles of launches of at most 2,000 blocks) and a CUPTI
# timeline of new 12288.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
e=.gpudata/exp
call_reference $e/old-b8192.pcb
for v in old new; do
  for B in 256 12288 16384 8192-w0; do call_outcomes $v-b$B $e/$v-b$B.pcb; done
done
call_outcomes new-b8192 $e/new-b8192.pcb
call_outcomes new-b12288-host $e/new-b12288.pcb --cond host
call_outcomes new-b8192-proofs $e/new-b8192.pcb --proofs /tmp/proofs-new.txt
call_outcomes old-b8192-proofs $e/old-b8192.pcb --proofs /tmp/proofs-old.txt
cmp -s /tmp/proofs-new.txt /tmp/proofs-old.txt && echo "proofs byte-identical" || echo "proofs DIFFER"
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for B in 12288 8192 256; do
    call_session_median $S $e/old-b$B.pcb "old b$B r$round"
    call_session_median $S $e/new-b$B.pcb "new b$B r$round"
  done
done
echo "measured at $(( $(date +%s) - t0 )) s"
r=$N/bin/proofc-run
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet"
for c in clock-b12288 clock-b8192 clockpol-b12288; do
  $r $e/$c.pcb $W --outcomes /tmp/$c.tsv > $OUT/$c.txt 2>&1 || { echo "$c failed"; tail -3 $OUT/$c.txt; }
  cmp -s /tmp/$c.tsv /tmp/ref.tsv && echo "$c outcomes byte-identical" || echo "$c outcomes DIFFER"
done
grep -E "^(STEP|CYC|CRIT)" $OUT/clock-b12288.txt | head -90
python3 - $OUT/clockpol-b12288.txt <<'PY'
import collections, re, sys
rows = [tuple(map(int, m.groups())) for m in re.finditer(r"CLKTILE (\d+) of (\d+): embedded (-?\d+) layered (-?\d+) arriving (-?\d+) end (-?\d+)", open(sys.argv[1]).read())]
print(f"{len(rows)} blocks printed; launches by grid: {sorted(collections.Counter(r[1] for r in rows).items())[:30]}")
def q(v):
    v = sorted(v); n = len(v)
    return f"{v[n // 4]:>6} {v[n // 2]:>6} {v[(3 * n) // 4]:>6} max {v[-1]:>6}" if n else "-"
for lo, hi in ((1, 40), (41, 400), (401, 2000)):
    sel = [r for r in rows if lo <= r[1] <= hi]
    if not sel: continue
    busy = [r for r in sel if r[2] >= 0 and r[5] >= 0]
    print(f"grid {lo}-{hi}: {len(sel)} blocks, {len(busy)} embedded (quartiles, max; cycles)")
    if busy:
        print(f"  embed   {q([r[2] for r in busy])}")
        print(f"  layers  {q([r[3] - r[2] for r in busy if r[3] >= 0])}")
        print(f"  dot     {q([r[4] - r[3] for r in busy if r[3] >= 0 and r[4] >= 0])}")
        print(f"  arrive  {q([r[5] - r[4] for r in busy if r[4] >= 0])}")
        print(f"  total   {q([r[5] for r in busy])}")
PY
call_timeline_lib /tmp/kt.so
CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-new.csv timeout 60 $S $e/new-b12288.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 3 > /dev/null 2>&1 || echo "traced failed"
python3 bench/proto/timeline_runs.py /tmp/tl-new.csv new12288 --launches 2>&1 | tail -40
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/tl-*.csv /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
gzip -f $OUT/clock*.txt
echo "all $(( $(date +%s) - t0 )) s"
