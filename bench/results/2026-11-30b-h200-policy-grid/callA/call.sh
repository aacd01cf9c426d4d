#!/usr/bin/env bash
# Session 2026-11-30b call A: the V10 B=4096 run's timeline at the run's own
# clock (nsys, graph nodes traced): kernel time against the run's span, the
# gaps between the step kernels.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"; ls /usr/local/cuda/ | head -40
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for B in 4096 256; do
  $b $d/sw/v10-b$B.pcb $W --calls 15 > /tmp/sb.json 2>/dev/null; python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('B=$B run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json
done
[ -n "$NSYS" ] || exit 0
for B in 4096 256; do
  timeout 200 $NSYS profile --cuda-graph-trace=node --trace=cuda -o /tmp/nsys-$B -f true $b $d/sw/v10-b$B.pcb $W --calls 6 > /tmp/nsys-$B.log 2>&1 || { echo "nsys $B failed"; tail -5 /tmp/nsys-$B.log; }
  timeout 200 $NSYS stats -r cuda_gpu_trace -f csv -o /tmp/tr-$B /tmp/nsys-$B.nsys-rep > /dev/null 2>&1 || echo "stats $B failed"
  ls /tmp/tr-$B* ; cp /tmp/tr-$B*.csv $OUT/ 2>/dev/null
done
python3 - <<'PY'
import csv, glob
for B in (4096, 256):
    fs = glob.glob(f"/tmp/tr-{B}*.csv")
    if not fs: continue
    rows = list(csv.DictReader(open(fs[0])))
    ks = [r for r in rows if r.get("Name") and "proofc" in r["Name"] or (r.get("Name","").startswith("proofc"))]
    ev = []
    for r in rows:
        n = r.get("Name", "")
        s = int(float(r["Start (ns)"])); du = int(float(r["Duration (ns)"]))
        ev.append((s, du, n))
    ev.sort()
    # group into calls by gaps > 200 us
    calls = [[ev[0]]]
    for e in ev[1:]:
        p = calls[-1][-1]
        if e[0] - (p[0] + p[1]) > 200_000: calls.append([e])
        else: calls[-1].append(e)
    print(f"B={B}: {len(ev)} events, {len(calls)} groups")
    for c in calls[-3:]:
        span = c[-1][0] + c[-1][1] - c[0][0]
        busy = sum(e[1] for e in c)
        gaps = [c[i+1][0] - (c[i][0] + c[i][1]) for i in range(len(c)-1)]
        print(f"  group: {len(c)} events, span {span/1e3:.1f} us, sum of durations {busy/1e3:.1f} us, gaps sum {sum(gaps)/1e3:.1f} us (median {sorted(gaps)[len(gaps)//2]/1e3 if gaps else 0:.2f}, max {max(gaps)/1e3 if gaps else 0:.2f})")
    c = calls[-1]
    import collections
    per = collections.defaultdict(list)
    for e in c: per[e[2][:40]].append(e[1])
    for n, x in per.items(): print(f"    {n}: {len(x)} x, sum {sum(x)/1e3:.1f} us")
    if B == 4096:
        for i, e in enumerate(c):
            g = (c[i+1][0] - (e[0] + e[1])) if i + 1 < len(c) else 0
            print(f"    {i:3d} {e[2][:34]:34s} {e[1]/1e3:8.2f} us  gap after {g/1e3:6.2f}")
PY
echo "done $(( $(date +%s) - t0 )) s"
