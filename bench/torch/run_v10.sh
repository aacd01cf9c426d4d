#!/usr/bin/env bash
# The V10 workload with the PyTorch port (both compiled variants), checked
# against each other and, when a proofc binary is given, against proofc with
# the time ratio. Run from anywhere on a machine with torch >= 2 and a GPU:
#
#   bench/torch/run_v10.sh                       # torch cond + nocond only
#   PROOFC=build/bin/proofc bench/torch/run_v10.sh   # also proofc, ratio, §7
#
# Environment: PROOFC_SHARED_DIR (default ../shared), OUT (default out/torch),
# PYTHON (default python3), DATASET (default kinship), QUERIES (100),
# CORRUPTIONS (100), BATCH (256), PROOFC_DEVICE (default cuda).
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${PROOFC_SHARED_DIR:-../shared}
out=${OUT:-out/torch}
py=${PYTHON:-python3}
ds=${DATASET:-kinship}
mkdir -p "$out"
workload=(--data "$shared/data/$ds" --weights "$shared/weights/$ds.safetensors"
          --queries "${QUERIES:-100}" --corruptions "${CORRUPTIONS:-100}")
common=("${workload[@]}" --batch "${BATCH:-256}")  # proofc's B comes from the program

for variant in nocond cond; do
  echo "== torch, variant $variant"
  "$py" -m bench.torch.evaluate "${common[@]}" --variant "$variant" \
    --outcomes "$out/$ds-$variant.tsv" --json "$out/$ds-$variant.json" 2>&1 |
    tee "$out/$ds-$variant.log"
done
echo "== torch cond vs torch nocond"
"$py" -m bench.torch.compare "$out/$ds-cond.tsv" "$out/$ds-nocond.tsv" \
  --report-a "$out/$ds-cond.json" --report-b "$out/$ds-nocond.json"

if [[ -n "${PROOFC:-}" ]]; then
  echo "== proofc ($PROOFC, device ${PROOFC_DEVICE:-cuda})"
  "$PROOFC" run examples/v10.mlir "${workload[@]}" --device "${PROOFC_DEVICE:-cuda}" \
    --report "$out/$ds-proofc.json" --outcomes "$out/$ds-proofc.tsv"
  for variant in nocond cond; do
    echo "== proofc vs torch $variant (ratio = torch / proofc)"
    "$py" -m bench.torch.compare "$out/$ds-proofc.tsv" "$out/$ds-$variant.tsv" \
      --report-a "$out/$ds-proofc.json" --report-b "$out/$ds-$variant.json"
  done
fi
