#!/usr/bin/env bash
# Call B: the step policy kernel's L1 against its shared memory. At 24
# one-warp blocks an SM (80 registers) the landed kernel's 4,612 bytes a
# block (+1 KiB the driver reserves) need 135,264 bytes, 96 over the
# 132 KiB carveout, so the SM's unified memory would be split 164 KiB
# shared / 92 KiB L1. "pad" (PROOFC_EXP_FLAG_IN_PAD at compile time) moves
# the 4-byte "this block is the last" flag into the rows' padding: 4,608
# bytes, exactly 132 KiB for 24 blocks. PROOFC_EXP_CARVEOUT (runtime, the
# policy kernel's preferred carveout in percent) forces a split: 100 (L1
# minimal) shows how much the kernel leans on L1, 57 asks for 132 KiB.
# V10 at B = 8192: outcomes against the landed kernel's, then the session
# bench, three rounds interleaved.
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
run() { # name bundle carveout
  env ${3:+PROOFC_EXP_CARVEOUT=$3} $N/bin/proofc-run $d/exp2/$2.pcb $W $Q --outcomes /tmp/o$1.tsv > /tmp/run.err 2>&1 || { echo "run $1 failed"; tail -2 /tmp/run.err; }
  grep EXP /tmp/run.err | head -1
  cmp -s /tmp/o$1.tsv /tmp/oL.tsv && echo "$1 outcomes byte-identical to L's" || echo "$1 outcomes DIFFER from L's"
}
run L v10-b8192-m21; run P v10-b8192-pad; run L100 v10-b8192-m21 100; run P57 v10-b8192-pad 57; run L57 v10-b8192-m21 57
sb() { # name bundle carveout
  env ${3:+PROOFC_EXP_CARVEOUT=$3} timeout 60 $N/bin/proofc-session-bench $d/exp2/$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$4 $1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do
  sb L v10-b8192-m21 "" r$round; sb P v10-b8192-pad "" r$round; sb L100 v10-b8192-m21 100 r$round
  sb P57 v10-b8192-pad 57 r$round; sb L57 v10-b8192-m21 57 r$round
done
echo "all $(( $(date +%s) - t0 )) s"
