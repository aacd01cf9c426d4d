#!/usr/bin/env bash
# Call D: row 36, the step policy grid sized on the device (this tree)
# against 0a5292f (its runtime built from .gpudata/old.tar.gz, its
# compiler's bundles *-old.pcb): outcomes byte-identical and equal to the
# CPU host's; session bench, two rounds; the new B=4096 timeline.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OLD=0; [ -f .gpudata/sw/v10-b4096-old.pcb ] && OLD=1
[ $OLD = 1 ] && mkdir -p /tmp/old && tar -xzf .gpudata/old.tar.gz -C /tmp/old && ln -s $PWD/.deps /tmp/old/.deps
(JOBS=8 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; echo NEW BUILD FAILED; }) &
[ $OLD = 1 ] && (cd /tmp/old && JOBS=8 scripts/gpu-build.sh /tmp/old-build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 /tmp/old-build.log; echo OLD BUILD FAILED; }) &
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
wait
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
run() { $1/bin/proofc-run $d/sw/$2.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$2.tsv > /tmp/run-$2.log 2>&1 || { echo "run $2 failed"; tail -5 /tmp/run-$2.log; }; }
N=build-gpu-device; O=/tmp/old/build-gpu-device
$N/bin/proofc-run $d/sw/v10-b256.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/out-cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
for B in 4096 1024 256; do
  run $N v10-b$B; [ $OLD = 1 ] || continue; run $O v10-b$B-old
  cmp -s /tmp/out-v10-b$B.tsv /tmp/out-v10-b$B-old.tsv && echo "B=$B outcomes byte-identical to 0a5292f's" || echo "B=$B outcomes DIFFER from 0a5292f's"
done
$N/bin/proofc-run $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond emulated --quiet --outcomes /tmp/out-emu.tsv > /dev/null 2>&1 && { cmp -s /tmp/out-emu.tsv /tmp/out-v10-b4096.tsv && echo "B=4096 --cond emulated byte-identical" || echo "B=4096 --cond emulated DIFFERS"; }
$N/bin/proofc-run $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet --outcomes /tmp/out-host.tsv > /dev/null 2>&1 && { cmp -s /tmp/out-host.tsv /tmp/out-v10-b4096.tsv && echo "B=4096 --cond host byte-identical" || echo "B=4096 --cond host DIFFERS"; }
python3 - <<'PY'
import csv
def load(n):
    rows = [r for r in csv.reader(open(n), delimiter="\t") if r and not r[0].startswith("#")]
    h = rows[0]; i = {k: j for j, k in enumerate(h)}
    return {(r[i["query"]], r[i["mode"]], r[i["entity"]]): (r[i["status"]], r[i["depth"]]) for r in rows[1:]}
ref = load("/tmp/out-cpu.tsv")
for B in (4096, 1024, 256):
    got = load(f"/tmp/out-v10-b{B}.tsv")
    print(f"B={B}: status and depth equal to the CPU host's on {sum(1 for k in ref if got.get(k) == ref[k])} of {len(ref)} candidates")
PY
echo "outcomes $(( $(date +%s) - t0 )) s"
sb() { timeout 60 $1/bin/proofc-session-bench $d/sw/$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $2" || tail -2 /tmp/sb.err; }
for round in 1 2; do
  for B in 4096 1024 256; do sb $N v10-b$B "r$round new"; [ $OLD = 1 ] && sb $O v10-b$B-old "r$round old"; done
done
echo "bench $(( $(date +%s) - t0 )) s"
if [ -f /tmp/kt.so ]; then
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-4096.csv $N/bin/proofc-session-bench $d/sw/v10-b4096.pcb $W --calls 6 > /dev/null 2>&1
  [ $OLD = 1 ] && CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-4096-old.csv $O/bin/proofc-session-bench $d/sw/v10-b4096-old.pcb $W --calls 6 > /dev/null 2>&1
  python3 bench/proto/timeline_gaps.py $OUT/tl-4096*.csv
fi
echo "done $(( $(date +%s) - t0 )) s"
