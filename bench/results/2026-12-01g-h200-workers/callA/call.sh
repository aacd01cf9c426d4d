#!/usr/bin/env bash
# Call A: would two proof loops side by side on one GPU beat one? V10 at
# B = 8192 alternates a policy launch (tensor cores, 20 blocks an SM) with an
# advance-engine launch (memo probes and unification, latency-bound); two
# loops of half the pool each, on two device workers, could overlap one's
# policy with the other's derive. The session bench's --block cuts a call
# into blocks of whole queries, run side by side by --workers-per-device
# workers. Medians of 15 calls (call and run; run is summed over the
# workers), and the CUPTI timeline's GPU span per call (first kernel start
# to last kernel end, calls split at gaps > 300 us). Outcomes of each cut
# against one block (expected byte-identical: blocks never change a result).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
B=.gpudata/bundles
$N/bin/proofc-run $B/v10-b8192.pcb $W --device cuda --quiet --outcomes /tmp/one.tsv > /tmp/run.err 2>&1 || { echo "one failed"; tail -3 /tmp/run.err; }
for v in "b8192 9400 2" "b4096 9400 2" "b4096 4700 4" "b2048 4700 4" "b4096 6300 3"; do
  set -- $v
  $N/bin/proofc-run $B/v10-$1.pcb $W --device cuda --quiet --block $2 --workers-per-device $3 --outcomes /tmp/cut.tsv > /tmp/run.err 2>&1 || { echo "$v failed"; tail -3 /tmp/run.err; }
  cmp -s /tmp/cut.tsv /tmp/one.tsv && echo "$v outcomes byte-identical to one block" || echo "$v outcomes DIFFER"
done
for r in 1 2; do
  call_session_median $N/bin/proofc-session-bench $B/v10-b8192.pcb "b8192 one r$r"
  call_session_median $N/bin/proofc-session-bench $B/v10-b4096.pcb "b4096 one r$r"
  for v in "b8192 9400 2" "b4096 9400 2" "b4096 4700 4" "b2048 4700 4" "b4096 6300 3" "b2048 9400 2"; do
    set -- $v
    call_session_median $N/bin/proofc-session-bench $B/v10-$1.pcb "$1 block$2 w$3 r$r" --block $2 --workers-per-device $3
  done
done
call_timeline_lib /tmp/kt.so
for v in "b8192 100000 1" "b8192 9400 2" "b4096 9400 2" "b4096 4700 4" "b2048 4700 4"; do
  set -- $v
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv $N/bin/proofc-session-bench $B/v10-$1.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --calls 6 --block $2 --workers-per-device $3 > /dev/null 2>&1 || echo "traced $v failed"
  cp /tmp/tl.csv $OUT/tl-$1-$2-$3.csv
  python3 - /tmp/tl.csv "$v" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))]
k = sorted((int(r[1]), int(r[2]), r[4]) for r in rows if r[0] == 'kernel')
groups, cur, end = [], [], 0
for s, e, n in k:
    if cur and s - end > 300_000:
        groups.append(cur); cur = []
    cur.append((s, e, n)); end = max(end, e)
groups.append(cur)
def busy(g):  # union of kernel intervals
    t, last = 0, 0
    for s, e, _ in sorted(g):
        s = max(s, last)
        if e > s: t += e - s
        last = max(last, e)
    return t
for g in groups[-5:]:
    span = (max(e for _, e, _ in g) - g[0][0]) / 1e3
    pol = sum(e - s for s, e, n in g if n.startswith('proofc_policy')) / 1e3
    adv = sum(e - s for s, e, n in g if n == 'proofc_advance_engine') / 1e3
    inits = sum(1 for _, _, n in g if n == 'proofc_init')
    print(sys.argv[2], 'span %.1f us, busy %.1f us, kernels %d, inits %d, policy sum %.1f, advance sum %.1f' % (span, busy(g) / 1e3, len(g), inits, pol, adv))
PY
done
echo "all $(( $(date +%s) - t0 )) s"
