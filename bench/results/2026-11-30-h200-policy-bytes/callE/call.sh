#!/usr/bin/env bash
# Row 35: the arrivals' release adds (no membar.gl, i.e. no L1 invalidation,
# in every block of the policy and the advance-engine) on top of row 34 (-shfl)
# and the compiler of f88664a (-old): outcomes, session bench (two rounds),
# Nsight Compute per launch with L1 hit rates, the SASS's fences.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt; cat $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
$r $d/sw/v10-b256.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/out-cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
for B in 4096 1024 256; do
  for v in "" -shfl -old; do
    $r $d/sw/v10-b$B$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$B$v.tsv > /tmp/run-$B$v.log 2>&1 || { echo "run $B$v failed"; tail -3 /tmp/run-$B$v.log; }
  done
  for v in -shfl -old; do cmp -s /tmp/out-$B.tsv /tmp/out-$B$v.tsv && echo "B=$B outcomes byte-identical to $v" || echo "B=$B outcomes DIFFER from $v"; done
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
echo "outcomes $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  for bun in v10-b4096 v10-b4096-shfl v10-b4096-old v10-b1024 v10-b1024-shfl v10-b1024-old v10-b256 v10-b256-old; do
    timeout 60 $b $d/sw/$bun.pcb $W --calls 15 > /tmp/sb.json 2> /tmp/sb.err
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "r$round $bun" || tail -2 /tmp/sb.err
  done
done
echo "bench $(( $(date +%s) - t0 )) s"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
for v in v10-b4096 v10-b4096-shfl; do
  timeout 150 $N --metrics gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum -k regex:'^proofc_(policy|advance_engine)$' --csv $r $d/sw/$v.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $OUT/ncu-$v.csv 2> /tmp/ncu-$v.err || echo "ncu $v failed"
done
python3 - $OUT <<'PY'
import csv, sys, collections
o = sys.argv[1]
for v in ["v10-b4096", "v10-b4096-shfl"]:
    rows = [r for r in csv.reader(l for l in open(f"{o}/ncu-{v}.csv") if l.startswith('"'))]
    h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value")
    s = collections.defaultdict(list)
    for r in rows[1:]:
        s[(r[ki][:20], r[mi])].append(float(r[vi].replace(",", "")))
    for (k, m), x in sorted(s.items()):
        print(v, k, m, "sum %.4g" % sum(x) if "pct" not in m else "mean %.1f" % (sum(x) / len(x)))
PY
C=/usr/local/cuda/bin/cuobjdump
/usr/local/cuda/bin/ptxas -arch=sm_90 $d/sw/policy-b4096.ptx -o /tmp/p.cubin && $C -sass /tmp/p.cubin > /tmp/p.sass && echo "policy SASS: MEMBAR $(grep -c MEMBAR /tmp/p.sass) CCTL $(grep -c CCTL /tmp/p.sass) ATOMG $(grep -c ATOMG /tmp/p.sass)"; grep -n "ATOMG\|MEMBAR\|CCTL\|ERRBAR" /tmp/p.sass | head
for f in $(find /tmp/pc -type f | head -20); do $C -sass $f > /tmp/k.sass 2>/dev/null && grep -q advance_engine /tmp/k.sass && { echo "$f: MEMBAR $(grep -c MEMBAR /tmp/k.sass) CCTL $(grep -c CCTL /tmp/k.sass)"; grep -n "ATOMG.*RELEASE\|MEMBAR\|CCTL\|ATOMG" /tmp/k.sass | tail -8; }; done
echo "done $(( $(date +%s) - t0 )) s"
