#!/usr/bin/env bash
# What fills the step policy kernel's L1: the l1tex throughput's breakdown and
# --set full on one full-step launch (launch 12: step 7) of V10 at B=4096, with
# the SASS source page (per-instruction wavefronts and sectors).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt; cat $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
run="$r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet"
timeout 200 $N --metrics breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg -k regex:'^proofc_policy$' --launch-skip 6 --launch-count 1 $run > $OUT/breakdown.txt 2>&1 || echo "breakdown failed"
grep -v "^==" $OUT/breakdown.txt | tail -40
timeout 250 $N --set full --import-source no -k regex:'^proofc_policy$' --launch-skip 6 --launch-count 1 -o $OUT/full-policy $run > $OUT/full.log 2>&1 || { echo "full failed"; tail -5 $OUT/full.log; }
$N --import $OUT/full-policy.ncu-rep --print-summary none > $OUT/full-policy.txt 2>&1
$N --import $OUT/full-policy.ncu-rep --page source --csv --print-source sass > $OUT/sass-policy.csv 2>/dev/null
python3 bench/proto/ncu_chunks.py $OUT/sass-policy.csv --kernel proofc_policy > $OUT/chunks-policy.txt 2>&1
head -3 $OUT/sass-policy.csv | cut -c1-3000
gzip -f $OUT/sass-policy.csv
rm -f $OUT/full-policy.ncu-rep
echo "done $(( $(date +%s) - t0 )) s"
