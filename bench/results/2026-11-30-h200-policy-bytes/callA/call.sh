#!/usr/bin/env bash
# Is the step policy kernel bound by the memory system's throughput? Nsight
# Compute's L1/L2/DRAM throughput and bytes for every launch of V10 at B=4096
# (clocks locked at 1.36 GHz, --cond host).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt; cat $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
M=gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
timeout 400 $N --metrics $M -k regex:'^proofc_(policy|advance_engine)$' --csv $r $d/sw/v10-b4096.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet > $OUT/ncu-mem.csv 2> $OUT/ncu-mem.err || { echo "ncu failed"; tail -5 $OUT/ncu-mem.err; }
echo "ncu $(( $(date +%s) - t0 )) s"
python3 - $OUT <<'PY'
import csv, sys, collections
o = sys.argv[1]
rows = [r for r in csv.reader(l for l in open(f"{o}/ncu-mem.csv") if l.startswith('"'))]
h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
t = collections.OrderedDict()
for r in rows[1:]:
    t.setdefault(int(r[ii]), {"k": r[ki]})[r[mi]] = float(r[vi].replace(",", ""))
keys = ["gpu__time_duration.sum", "lts__t_sectors_op_read.sum", "lts__t_sector_op_read_hit_rate.pct", "dram__bytes_read.sum", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__t_sector_hit_rate.pct", "sm__warps_active.avg.per_cycle_active", "smsp__inst_executed.sum", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.pct_of_peak_sustained_active"]
short = ["us", "L2rdMB", "L2hit%", "dramMB", "L2%", "L1%", "dram%", "sm%", "L1hit%", "warps", "kinst", "lsu%", "issue%"]
print("id kernel " + " ".join(short))
for i, m in t.items():
    v = [m.get(k, float("nan")) for k in keys]
    v[0] /= 1e3; v[1] = v[1] * 32 / 1e6; v[3] /= 1e6; v[10] /= 1e3
    print(i, m["k"][:14], " ".join("%.1f" % x for x in v))
PY
echo "done $(( $(date +%s) - t0 )) s"
