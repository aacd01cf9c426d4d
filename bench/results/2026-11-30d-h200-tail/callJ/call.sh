#!/usr/bin/env bash
# Call J: the review mend of row 37 (step.cu: a listed slot, not every
# active one, raises the listed slots' most children; count[b] read once),
# against c59b33b's step.cu text in the same bundle ("-c59"): outcomes
# byte-identical and equal to the CPU host's, the session bench at B=4096
# (two rounds).
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
for v in "" -c59; do $r $d/sw/v10-b4096$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out$v.tsv > /tmp/run.log 2>&1 || { echo "run $v failed"; tail -5 /tmp/run.log; }; done
cmp -s /tmp/out.tsv /tmp/out-c59.tsv && echo "outcomes byte-identical to c59b33b's" || echo "outcomes DIFFER from c59b33b's"
python3 - <<'PY'
import csv
def load(n):
    rows = [r for r in csv.reader(open(n), delimiter="\t") if r and not r[0].startswith("#")]
    h = rows[0]; i = {k: j for j, k in enumerate(h)}
    return {(r[i["query"]], r[i["mode"]], r[i["entity"]]): (r[i["status"]], r[i["depth"]]) for r in rows[1:]}
ref = load("/tmp/out-cpu.tsv"); got = load("/tmp/out.tsv")
print(f"status and depth equal to the CPU host's on {sum(1 for k in ref if got.get(k) == ref[k])} of {len(ref)} candidates")
PY
sb() { timeout 60 build-gpu-device/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do for v in "" -c59; do sb v10-b4096$v "r$round"; done; done
echo "done $(( $(date +%s) - t0 )) s"
