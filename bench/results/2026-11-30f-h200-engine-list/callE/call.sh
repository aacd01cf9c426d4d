#!/usr/bin/env bash
# Call E: the setup time of row 39's graphs. Call D's fb15k-237 runs at
# B = 16384 took 1.44-1.49 s of setup against 0.81-0.88 s for 4c850d3's:
# the first graph there with device-updatable nodes (the advance-engine's
# copies; 4c850d3 resizes no node at 16384). One-shot V10 runs (proofc-run
# --report, the kernel cache warm: each bundle run once before) at B =
# 4096, 8192 and 16384, new and old, three each: setup and run seconds;
# the new 16384 also with --cond emulated (no node arguments bound) and
# --unroll 1. Then the session bench at 4096 (row 39's heuristic: no
# engine node below 8192) and 8192 against 4c850d3's, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
O=.gpudata/oldtree
ln -sfn $PWD/.deps $O/.deps
(cd $O && JOBS=16 scripts/gpu-build.sh $OUT/build-old.log proofc-run proofc-session-bench > /dev/null 2>&1) || { tail -30 $OUT/build-old.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
bin() { [ "${1:-}" = -old ] && echo $O/$N/bin || echo $N/bin; }
one() { # bundle variant label extra...
  local b=$1 v=$2 label=$3; shift 3
  $(bin $v)/proofc-run $d/sw/v10-b$b$v.pcb $W $Q "$@" --report /tmp/r.json > /tmp/r.err 2>&1 || { echo "$label failed"; tail -2 /tmp/r.err; return; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'setup %.3f run %.4f total %.3f' % (t['setup_seconds'], t['run_seconds'], t['total_seconds']))" /tmp/r.json "$label"
  rm -f /tmp/r.json
}
for b in 4096 8192 16384; do for v in "" -old; do one $b "$v" warm-b$b$v > /dev/null; done; done
for rep in 1 2 3; do for b in 4096 8192 16384; do for v in "" -old; do one $b "$v" "r$rep b$b${v:-new}"; done; done
  one 16384 "" "r$rep b16384new --cond emulated" --cond emulated
  one 16384 "" "r$rep b16384new --unroll 1" --unroll 1
done
echo "one-shot at $(( $(date +%s) - t0 )) s"
sb() { timeout 60 $(bin $2)/proofc-session-bench $d/sw/v10-b$1$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 v10-b$1$2" || tail -2 /tmp/sb.err; }
for round in 1 2; do for b in 4096 8192; do for v in "" -old; do sb $b "$v" "r$round"; done; done; done
$N/bin/proofc-run $d/sw/v10-b4096.pcb $W $Q --outcomes /tmp/n.tsv > /dev/null 2>&1; $O/$N/bin/proofc-run $d/sw/v10-b4096-old.pcb $W $Q --outcomes /tmp/o.tsv > /dev/null 2>&1
cmp -s /tmp/n.tsv /tmp/o.tsv && echo "B=4096 outcomes byte-identical to 4c850d3's" || echo "B=4096 outcomes DIFFER"
echo "all $(( $(date +%s) - t0 )) s"
