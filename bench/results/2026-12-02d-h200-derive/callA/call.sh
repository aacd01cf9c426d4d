#!/usr/bin/env bash
# Call A: what the advance-engine's full steps are bound by at B = 8192
# (V10, kinship's trained policy; the landed f03f8a6 bundle). The clock
# counters by step (bench/proto/clock_step.py), then Nsight Compute with
# --cond host (one launch a kernel): a few metrics over every
# advance-engine and engine launch (time, instructions, issue activity,
# achieved occupancy), and --set full with the SASS page on the first
# engine launch (derive only, every start state) and on the fifth
# advance-engine launch (a full step).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
r=$N/bin/proofc-run
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet"
b=.gpudata/bundles/v10-b8192.pcb
$r .gpudata/bundles/v10-b8192-clock.pcb $W --outcomes /tmp/clk.tsv > $OUT/clock.txt 2>&1 || echo "clock run failed"
$r $b $W --outcomes /tmp/ref.tsv > /dev/null 2>&1 || echo "ref run failed"
cmp -s /tmp/clk.tsv /tmp/ref.tsv && echo "clock outcomes byte-identical" || echo "clock outcomes DIFFER"
grep -E "^(STEP|CYC|CRIT)" $OUT/clock.txt | head -120
NC=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
run="$r $b $W --cond host"
timeout 240 $NC --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__thread_inst_executed_per_inst_executed.ratio -k regex:'^proofc_(advance_engine|engine)$' --csv $run > $OUT/metrics.csv 2> $OUT/metrics.err || { echo "metrics failed"; tail -5 $OUT/metrics.err; }
python3 - $OUT/metrics.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
ix = {h: i for i, h in enumerate(hdr)}
by = collections.OrderedDict()
for r in rows:
    by.setdefault((r[ix['ID']], r[ix['Kernel Name']]), {})[r[ix['Metric Name']]] = r[ix['Metric Value']]
for (i, k), m in by.items():
    print(i, k[:22], ' '.join('%s=%s' % (n.split('__')[1][:28], v) for n, v in sorted(m.items())))
PY
for spec in "engine 0" "advance_engine 4" "advance_engine 16"; do
  set -- $spec
  timeout 200 $NC --set full --import-source no -k regex:"^proofc_$1\$" --launch-skip $2 --launch-count 1 -o /tmp/full $run > /tmp/full.log 2>&1 || { echo "full $1 $2 failed"; tail -3 /tmp/full.log; continue; }
  $NC --import /tmp/full.ncu-rep --print-summary none > $OUT/full-$1-$2.txt 2>&1
  $NC --import /tmp/full.ncu-rep --page source --csv --print-source sass > $OUT/sass-$1-$2.csv 2>/dev/null
  gzip -f $OUT/sass-$1-$2.csv
  rm -f /tmp/full.ncu-rep
  grep -E "Duration|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|No Eligible|Executed Instructions  " $OUT/full-$1-$2.txt | head -20
done
echo "all $(( $(date +%s) - t0 )) s"
