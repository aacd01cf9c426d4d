#!/usr/bin/env bash
# Call A: row 38, the step policy grid one block a tile (the advance-engine
# lists an entry (slot + B x part, k) for each part a slot's children fill;
# the policy block reads its entry with the guard), against 4fba8af's
# kernels ("-old"), both run by this tree's runtime: outcomes byte-identical
# and equal to the CPU host's at B = 4096, 1024 and 256, the session bench
# (three rounds). Also the grid resized at B = 1024 and, for fb15k-237
# (random weights), at B = 16384 ("-rs": compiled with
# choosePolicyGridResize true from B = 1024), against the tree's default
# there (no resize): outcomes, session bench, q700 twice.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
tar -xzf .fbdata/fb.tar.gz -C .fbdata
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
$r $d/sw/v10-b256.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/out-cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
for v in b4096 b4096-old b1024 b1024-old b1024-rs b256 b256-old; do
  $r $d/sw/v10-$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$v.tsv > /tmp/run.log 2>&1 || { echo "run $v failed"; tail -5 /tmp/run.log; }
done
for v in b4096 b1024 b1024-rs b256; do
  o=${v%-rs}-old
  cmp -s /tmp/out-$v.tsv /tmp/out-$o.tsv && echo "$v outcomes byte-identical to 4fba8af's" || echo "$v outcomes DIFFER from 4fba8af's"
done
python3 - <<'PY'
import csv
def load(n):
    rows = [r for r in csv.reader(open(n), delimiter="\t") if r and not r[0].startswith("#")]
    h = rows[0]; i = {k: j for j, k in enumerate(h)}
    return {(r[i["query"]], r[i["mode"]], r[i["entity"]]): (r[i["status"]], r[i["depth"]]) for r in rows[1:]}
ref = load("/tmp/out-cpu.tsv")
for v in ("b4096", "b1024", "b1024-rs", "b256"):
    got = load(f"/tmp/out-{v}.tsv")
    print(f"{v}: status and depth equal to the CPU host's on {sum(1 for k in ref if got.get(k) == ref[k])} of {len(ref)} candidates")
PY
echo "outcomes $(( $(date +%s) - t0 )) s"
sb() { timeout 60 build-gpu-device/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for v in b4096 b4096-old; do sb v10-$v "r$round"; done; done
for round in 1 2; do for v in b1024 b1024-old b1024-rs b256 b256-old; do sb v10-$v "r$round"; done; done
echo "bench $(( $(date +%s) - t0 )) s"
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
for v in "" -old -rs; do $r $f/bundles/v10-b16384$v.pcb $F --queries 60 --outcomes /tmp/f$v.tsv > /dev/null 2>&1 || echo "fb $v failed"; done
cmp -s /tmp/f.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries: outcomes identical to 4fba8af's" || echo "fb15k-237: OUTCOMES DIFFER"
cmp -s /tmp/f-rs.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries -rs: outcomes identical" || echo "fb15k-237 -rs: OUTCOMES DIFFER"
for round in 1 2; do
  for v in "" -old -rs; do
    $r $f/bundles/v10-b16384$v.pcb $F --queries 700 --report /tmp/q700.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "r$round fb15k-237 q700 ${v:-new}"
  done
done
echo "done $(( $(date +%s) - t0 )) s"
