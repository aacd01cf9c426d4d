#!/usr/bin/env bash
# Call E: two rows' table reads in flight in the folded embedding
# (embed-pairs.diff, set by PROOFC_EXP_EMBED_PAIRS at compile time: each
# loop iteration embeds rows t and t + 1 of the warp, every table read of
# both issued before the first add; the next two rows' state words
# prefetched). ptxas: 80 registers and 44 bytes of spills as row 40's,
# since the second linear's k-step loop (78 live) is the peak and the
# folded embedding needed at most 47. Row 40's bundles (.gpudata/sw)
# against the pairs (.gpudata/exp3), V10 at B = 1024, 4096, 8192, 16384:
# outcomes compared, the session bench, three rounds interleaved; then
# fb15k-237 q700 at B = 16384, one round each.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build-bench.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build-bench.log; exit 1; }
echo "bench built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 1024 4096 8192 16384; do
  for v in sw exp3; do
    $N/bin/proofc-run $d/$v/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }
  done
  cmp -s /tmp/o-sw-$b.tsv /tmp/o-exp3-$b.tsv && echo "B=$b pairs outcomes byte-identical to row 40's" || echo "B=$b pairs outcomes DIFFER"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/$1/v10-b$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $1 B=$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 1024 4096 8192 16384; do sb sw $b r$round; sb exp3 $b r$round; done; done
echo "bench done at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
for v in sw exp3; do
  $N/bin/proofc-run $d/$v/v10-b16384.pcb $F --queries 700 --report /tmp/q700.json --outcomes /tmp/fb-$v.tsv > /tmp/fb.err 2>&1 || { echo "fb $v failed"; tail -2 /tmp/fb.err; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "fb15k-237 q700 $v"
  rm -f /tmp/q700.json
done; cmp -s /tmp/fb-sw.tsv /tmp/fb-exp3.tsv && echo "fb15k-237 q700 outcomes byte-identical" || echo "fb15k-237 q700 outcomes DIFFER"
echo "all $(( $(date +%s) - t0 )) s"
