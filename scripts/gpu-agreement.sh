#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root, after
# scripts/prepare-gpu-run.sh here (carry .deps and .gpudata). Builds the
# runtime alone, then for each dataset runs the host backend and the CUDA
# backend in every --cond mode on the same bundle and inputs, and fails unless
# each CUDA run agrees with the host per spec §7 (bench/torch/compare.py).
# Datasets: test split, first 500 queries where there are more, 100
# corruptions, both modes. Bundles: the V10 program under each proof-loop
# schedule (v10-step.pcb, v10-persistent.pcb), or PROOFC_BUNDLES. Also runs
# compute-sanitizer memcheck and racecheck on a small run of each. Logs and
# outcome files go under $OUT.
#   scripts/gpu-agreement.sh [DATASET...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/.out}
build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
data=$root/.gpudata
read -r -a bundles <<< "${PROOFC_BUNDLES:-$data/bundles/v10-step.pcb $data/bundles/v10-persistent.pcb}"
datasets=("$@")
[ ${#datasets[@]} -gt 0 ] || datasets=(countries_s3 kinship umls nations)
mkdir -p "$out/logs"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PROOFC_CACHE_DIR=${PROOFC_CACHE_DIR:-/tmp/proofc-kernel-cache}

PROOFC_GPU_BUILD_DIR=$build "$root/scripts/gpu-build.sh" "$out/agreement-build.log" proofc-run ||
  exit 1
run=$build/bin/proofc-run

failed=0
table="bundle\tdataset\tcandidates\tcond\tagreement\tmax|dmetric|\thost_s\tcuda_s\tresult"
for name in "${datasets[@]}"; do
  common=(--data "$data/data/$name" --weights "$data/weights/$name.safetensors"
          --queries 500 --corruptions 100)
  # The host backend runs the program, not the schedule: once per dataset.
  "$run" "${bundles[0]}" "${common[@]}" --device cpu --report "$out/logs/$name-host.json" \
    --outcomes "$out/logs/$name-host.tsv" > "$out/logs/$name-host.log" 2>&1 ||
    { echo "gpu-agreement: host run failed on $name"; cat "$out/logs/$name-host.log"; failed=1; continue; }
  for bundle in "${bundles[@]}"; do
  bname=$(basename "$bundle" .pcb)
  for cond in native emulated host; do
    tag=$bname-$name-cuda-$cond
    if ! "$run" "$bundle" "${common[@]}" --device cuda --cond "$cond" \
         --report "$out/logs/$tag.json" --outcomes "$out/logs/$tag.tsv" > "$out/logs/$tag.log" 2>&1; then
      echo "gpu-agreement: cuda run failed on $name ($cond)"; tail -5 "$out/logs/$tag.log"
      table+="\n$bname\t$name\t-\t$cond\t-\t-\t-\t-\tRUN FAILED"; failed=1; continue
    fi
    python3 "$root/bench/torch/compare.py" "$out/logs/$name-host.tsv" "$out/logs/$tag.tsv" \
      --report-a "$out/logs/$name-host.json" --report-b "$out/logs/$tag.json" > "$out/logs/$tag.compare" 2>&1
    rc=$?
    row=$(python3 - "$out/logs/$tag.compare" "$out/logs/$name-host.json" "$out/logs/$tag.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
host, cuda = (json.load(open(p)) for p in sys.argv[2:4])
agree = re.search(r"\(([0-9.]+%)", text)
dmrr = re.search(r"largest metric difference ([0-9.eE+-]+)", text)
def secs(r):
    t = r.get("timings", {})
    return t.get("run_seconds", t.get("runSeconds", float("nan")))
print("\t".join([str(host.get("metrics", {}).get("candidates", "?")),
                 agree.group(1) if agree else "?", dmrr.group(1) if dmrr else "?",
                 f"{secs(host):.3f}", f"{secs(cuda):.3f}"]))
PY
)
    c=$(echo "$row" | cut -f1); rest=$(echo "$row" | cut -f2-)
    if [ $rc -eq 0 ]; then result=PASS; else result=FAIL; failed=1; fi
    table+="\n$bname\t$name\t$c\t$cond\t$rest\t$result"
  done
done
done

# compute-sanitizer on a small run (countries_s3, 5 queries), each cond mode.
if command -v compute-sanitizer > /dev/null; then
  small=(--data "$data/data/countries_s3" --weights "$data/weights/countries_s3.safetensors"
         --queries 5 --corruptions 20 --device cuda)
  # racecheck is run on the emulated loop only: on the H100 (driver 580,
  # CUDA 13.0) racecheck makes the process fail without reporting any hazard as
  # soon as the graph holds device-set conditional nodes, while the same
  # kernels launched without them (emulated) and memcheck in both modes pass.
  for bundle in "${bundles[@]}"; do
  bname=$(basename "$bundle" .pcb)
  for check in memcheck:native memcheck:emulated racecheck:emulated; do
    tool=${check%%:*} cond=${check#*:}
    {
      log=$out/logs/sanitizer-$bname-$tool-$cond.log
      if compute-sanitizer --tool $tool --error-exitcode 9 "$run" "$bundle" "${small[@]}" \
           --cond $cond > "$log" 2>&1; then
        table+="\n$bname\tcountries_s3(5q)\t-\t$cond\t$tool\t-\t-\t-\tPASS"
      else
        table+="\n$bname\tcountries_s3(5q)\t-\t$cond\t$tool\t-\t-\t-\tFAIL"; failed=1
        echo "== $bname $tool $cond"; grep -v '^=========     ' "$log" | tail -15
      fi
    }
  done
  done
fi

printf "%b\n" "$table" | python3 -c '
import sys
rows = [line.rstrip("\n").split("\t") for line in sys.stdin if line.strip()]
widths = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(max(map(len, rows)))]
for r in rows:
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
' | tee "$out/agreement-table.txt"
# At most a few files come back from the GPU machine: pack the per-run logs.
tar -czf "$out/agreement-logs.tar.gz" -C "$out" logs
[ $failed -eq 0 ] && echo "gpu-agreement: ALL AGREE" || echo "gpu-agreement: FAILURES"
exit $failed
