#!/usr/bin/env bash
# Call F (one H100): what a full step's policy launch is bound by now, on
# the issue's card, for V10's fastest B (12288; the last V10 profile was
# before rows 34-35, at B = 4096 on an H200, 2026-11-30): the pipes'
# utilization and the shared-memory bank conflicts of the fourth policy
# launch (a full step), then --set full on it with the SASS source page
# and ncu_chunks.py's attribution (--cond host: the launches one by one).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
NC=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
run="$N/bin/proofc-run .gpudata/bundles/v10-b12288.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --cond host --quiet"
$run > /dev/null 2>&1 || echo "warm-up run failed"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active
M=$M,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct
for skip in 0 3 12; do
  timeout 120 $NC --metrics $M -k regex:'^proofc_policy$' --launch-skip $skip --launch-count 1 $run > $OUT/pipes-$skip.txt 2>&1 || echo "pipes $skip failed"
  echo "== policy launch $skip"; grep -v "^==" $OUT/pipes-$skip.txt | grep -E "proofc|gpu__|sm__|smsp__|l1tex__|lts__" | head -20
done
echo "pipes at $(( $(date +%s) - t0 )) s"
timeout 200 $NC --set full --import-source no -k regex:'^proofc_policy$' --launch-skip 3 --launch-count 1 -o /tmp/full $run > /tmp/full.log 2>&1 || { echo "full failed"; tail -5 /tmp/full.log; }
$NC --import /tmp/full.ncu-rep --print-summary none > $OUT/full-policy-3.txt 2>&1
$NC --import /tmp/full.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>/dev/null
python3 bench/proto/ncu_chunks.py /tmp/sass.csv --kernel proofc_policy > $OUT/chunks-policy-3.txt 2>&1
gzip -c /tmp/sass.csv > $OUT/sass-policy-3.csv.gz
grep -E "Duration|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|No Eligible|L1/TEX Hit|L2 Hit|L1/TEX Cache Throughput|Local Memory Spilling Requests  |highest-utilized" $OUT/full-policy-3.txt | head -24
head -40 $OUT/chunks-policy-3.txt
echo "all $(( $(date +%s) - t0 )) s"
