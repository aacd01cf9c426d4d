#!/usr/bin/env bash
# Call G (one H100): call F's profile ran with --cond host, where no graph
# resizes the policy's grid, so each launch had B x 8 = 98,304 blocks and
# most of them returned at their entry (19 % of the stall samples in the
# first 50 SASS instructions). Here the same launches inside the graph
# the runs use, with --cond emulated (ncu does not profile the kernel
# nodes of a graph that can have conditional nodes, which --cond native,
# the default, has: its first form here said so); ncu --graph-profiling node
# profiles a graph's kernel nodes one by one): the pipes of the first,
# fourth and thirteenth policy launches, then --set full on the fourth
# with the SASS source page and ncu_chunks.py's attribution.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
NC=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
run="$N/bin/proofc-run .gpudata/bundles/v10-b12288.pcb --data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --cond emulated --quiet"
$run > /dev/null 2>&1 || echo "warm-up run failed"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active,launch__grid_size
M=$M,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct
for skip in 0 3 12; do
  timeout 100 $NC --graph-profiling node --metrics $M -k regex:'^proofc_policy$' --launch-skip $skip --launch-count 1 $run > $OUT/pipes-$skip.txt 2>&1 || echo "pipes $skip failed"
  echo "== policy launch $skip"; grep -v "^==PROF" $OUT/pipes-$skip.txt | grep -E "proofc_policy|gpu__|sm__|smsp__|l1tex__|lts__|launch__|ERR|rror" | head -22
done
echo "pipes at $(( $(date +%s) - t0 )) s"
timeout 150 $NC --graph-profiling node -f --set full --import-source no -k regex:'^proofc_policy$' --launch-skip 3 --launch-count 1 -o /tmp/full $run > /tmp/full.log 2>&1 || { echo "full failed"; tail -5 /tmp/full.log; }
$NC --import /tmp/full.ncu-rep --print-summary none > $OUT/full-policy-3.txt 2>&1
$NC --import /tmp/full.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>/dev/null
python3 bench/proto/ncu_chunks.py /tmp/sass.csv --kernel proofc_policy > $OUT/chunks-policy-3.txt 2>&1
gzip -c /tmp/sass.csv > $OUT/sass-policy-3.csv.gz
grep -E "proofc_policy|Duration|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers|Warp Cycles Per Issued|No Eligible|L1/TEX Cache Throughput|Local Memory Spilling Requests  |highest-utilized" $OUT/full-policy-3.txt | head -16
head -80 $OUT/chunks-policy-3.txt
echo "all $(( $(date +%s) - t0 )) s"
