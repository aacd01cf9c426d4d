#!/usr/bin/env bash
# Call E: the memo walk bounded per advance (memo.cu's PROOFC_MEMO_MAX_HITS,
# added to the advance module's options of this tree's bundles: 3, 6, 10;
# "new" is this tree's default, no bound, "old" 87d5000's kernels), V10 at
# B = 4096 and 1024: outcomes byte-identical to 87d5000's and equal to the
# CPU host's, the session bench (two rounds), clock_step.py's per-step
# cycles with the bound 6 at B = 4096.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
$r $d/sw/v10-b256.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/out-cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
for B in 4096 1024; do
  for v in -old "" -h3 -h6 -h10; do
    $r $d/sw/v10-b$B$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$B$v.tsv > /tmp/run.log 2>&1 || { echo "run $B$v failed"; tail -5 /tmp/run.log; }
    [ "$v" = -old ] || { cmp -s /tmp/out-$B$v.tsv /tmp/out-$B-old.tsv && echo "B=$B$v outcomes byte-identical to 87d5000's" || echo "B=$B$v outcomes DIFFER from 87d5000's"; }
  done
done
python3 - <<'PY'
import csv
def load(n):
    rows = [r for r in csv.reader(open(n), delimiter="\t") if r and not r[0].startswith("#")]
    h = rows[0]; i = {k: j for j, k in enumerate(h)}
    return {(r[i["query"]], r[i["mode"]], r[i["entity"]]): (r[i["status"]], r[i["depth"]]) for r in rows[1:]}
ref = load("/tmp/out-cpu.tsv")
for B in (4096, 1024):
    got = load(f"/tmp/out-{B}-h6.tsv")
    print(f"B={B} h6: status and depth equal to the CPU host's on {sum(1 for k in ref if got.get(k) == ref[k])} of {len(ref)} candidates")
PY
$r $d/sw/v10-b4096-h6-clock.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-clock.tsv > $OUT/clock-h6.txt 2>&1 || echo "clock failed"
cmp -s /tmp/out-clock.tsv /tmp/out-4096-old.tsv && echo "clock h6 outcomes byte-identical" || echo "clock h6 outcomes DIFFER"
echo "outcomes $(( $(date +%s) - t0 )) s"
sb() { timeout 60 build-gpu-device/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do
  for B in 4096 1024; do for v in -old "" -h3 -h6 -h10; do sb v10-b$B$v "r$round"; done; done
done
echo "done $(( $(date +%s) - t0 )) s"
