#!/usr/bin/env bash
# Call C: row 37 as call B, the entry checked by the threads that load it
# (advance.cu's advanceSlotBlock: the block loads each memo entry into
# shared memory and checks it there: 115 -> 48 registers), against the landed kernels (87d5000's
# compiler, "-old" bundles), both run by this tree's runtime (the kernels
# come from the bundles): outcomes byte-identical and equal to the CPU
# host's, the session bench (two rounds), the advance-engine's registers
# and occupancy (Nsight Compute's launch statistics, launch 10)
# 60 queries byte for byte and q700 twice each.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
tar -xzf .fbdata/fb.tar.gz -C .fbdata
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
$r $d/sw/v10-b256.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/out-cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
for B in 4096 1024 256; do
  for v in "" -old; do
    $r $d/sw/v10-b$B$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$B$v.tsv > /tmp/run.log 2>&1 || { echo "run $B$v failed"; tail -5 /tmp/run.log; }
  done
  cmp -s /tmp/out-$B.tsv /tmp/out-$B-old.tsv && echo "B=$B outcomes byte-identical to 87d5000's" || echo "B=$B outcomes DIFFER from 87d5000's"
done
python3 - <<'PY'
import csv
def load(n):
    rows = [r for r in csv.reader(open(n), delimiter="\t") if r and not r[0].startswith("#")]
    h = rows[0]; i = {k: j for j, k in enumerate(h)}
    return {(r[i["query"]], r[i["mode"]], r[i["entity"]]): (r[i["status"]], r[i["depth"]]) for r in rows[1:]}
ref = load("/tmp/out-cpu.tsv")
for B in (4096, 1024, 256):
    got = load(f"/tmp/out-{B}.tsv")
    print(f"B={B}: status and depth equal to the CPU host's on {sum(1 for k in ref if got.get(k) == ref[k])} of {len(ref)} candidates")
PY
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
for v in "" -old; do
  timeout 120 $N --section LaunchStats --section Occupancy -k regex:'^proofc_advance_engine$' --launch-skip 10 --launch-count 1 $r $d/sw/v10-b4096$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > /tmp/occ.txt 2>&1
  echo "advance-engine B=4096${v:- new}:"; grep -E "Registers Per Thread|Block Limit Registers|Block Limit Shared|Achieved Occupancy|Theoretical Occupancy|Duration" /tmp/occ.txt | tr -s ' '
done
echo "outcomes $(( $(date +%s) - t0 )) s"
sb() { timeout 60 build-gpu-device/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do
  for B in 4096 1024 256; do sb v10-b$B "r$round new"; sb v10-b$B-old "r$round old"; done
done
echo "bench $(( $(date +%s) - t0 )) s"
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
$r $f/bundles/v10-b16384.pcb $F --queries 60 --outcomes /tmp/f.tsv > /dev/null 2>&1 || echo "fb new failed"
$r $f/bundles/v10-b16384-old.pcb $F --queries 60 --outcomes /tmp/f-old.tsv > /dev/null 2>&1 || echo "fb old failed"
cmp -s /tmp/f.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries: outcomes identical ($(wc -l < /tmp/f.tsv) lines)" || echo "fb15k-237: OUTCOMES DIFFER"
for round in 1 2; do
  for v in "" -old; do
    $r $f/bundles/v10-b16384$v.pcb $F --queries 700 --report /tmp/q700.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "r$round fb15k-237 q700 ${v:-new}"
  done
done
echo "done $(( $(date +%s) - t0 )) s"
