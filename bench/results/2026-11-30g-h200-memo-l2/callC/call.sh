#!/usr/bin/env bash
# Call C: the step memo's next-step copies (memo.cu, "Two steps a round
# trip"): V10 with this tree's bundles against a207242's ("-base",
# compiled by a207242's compiler before the change; both run by this
# tree's runtime, whose plans size the memo from the bundle). Outcomes
# byte-identical to the base's at B = 4096, 8192, 16384 and on fb15k-237
# q700; status and depth against the CPU host's; the session bench, three
# rounds interleaved; fb15k-237 q700 at 16384, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 4096 8192 16384; do
  for v in "" -base; do $N/bin/proofc-run $d/sw/v10-b$b$v.pcb $W $Q --outcomes /tmp/o$b$v.tsv > /tmp/run.err 2>&1 || { echo "run $b$v failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o$b.tsv /tmp/o$b-base.tsv && echo "B=$b outcomes byte-identical to the base's" || echo "B=$b outcomes DIFFER"
done
$N/bin/proofc-run $d/sw/v10-b256.pcb $W $Q --outcomes /tmp/o256.tsv > /tmp/run.err 2>&1 || { echo "run 256 failed"; tail -2 /tmp/run.err; }
cmp -s /tmp/o256.tsv /tmp/o4096.tsv && echo "B=256 (persistent) outcomes byte-identical to B=4096's" || echo "B=256 outcomes DIFFER from 4096's"
$N/bin/proofc-run $d/bundles/v10.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
python3 - /tmp/cpu.tsv /tmp/o8192.tsv <<'PY'
import sys
def rows(p):
    L = [l for l in open(p).read().split('\n') if l and not l.startswith('#')]
    h = L[0].split('\t'); i, j = h.index('status'), h.index('depth')
    return [(r.split('\t')[i], r.split('\t')[j]) for r in L[1:]]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print(f"B=8192 status and depth equal to the CPU host's: {sum(x == y for x, y in zip(a, b))} of {len(a)} ({len(b)} GPU rows)")
PY
sb() { timeout 60 $N/bin/proofc-session-bench $d/sw/v10-b$1$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 v10-b$1$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 4096 8192 16384; do for v in "" -base; do sb $b "$v" "r$round"; done; done; sb 256 "" "r$round"; done
echo "session bench at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet --queries 700"
for round in 1 2; do for v in "" -base; do
  $N/bin/proofc-run $f/bundles/v10-b16384$v.pcb $F --report /tmp/q700.json --outcomes /tmp/fb$v.tsv > /tmp/fb.err 2>&1 || { echo "fb $v failed"; tail -2 /tmp/fb.err; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "r$round fb15k-237 q700 ${v:-new}"
  rm -f /tmp/q700.json
done; cmp -s /tmp/fb.tsv /tmp/fb-base.tsv && echo "fb15k-237 q700 outcomes byte-identical" || echo "fb15k-237 q700 outcomes DIFFER"; done
echo "all $(( $(date +%s) - t0 )) s"
