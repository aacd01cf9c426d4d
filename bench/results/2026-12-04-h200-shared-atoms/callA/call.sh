#!/usr/bin/env bash
# Call A: the unfolded embedding with each atom's index work done once a
# row (Embedding.cpp's embedSharedAtoms: thread j of a row loads atom j's
# three state words, finds its three table rows and two scales, and the
# row's threads take them by shuffles), "new", against e9ec923's bundles,
# "base". V10 (kinship 100 x 100, the trained policy) compiled with
# --no-atom-layer-table (the unfolded embedding; "-nf"): new's outcomes at
# B = 12288, 256 and with --cond host against base-nf 12288's, and the
# default (folded) bundle's; session bench at 12288, three rounds
# interleaved. The policy PTX's SASS by ptxas + cuobjdump (instructions,
# registers). fb15k-237 (B = 16384, seed-0 random weights, unfolded: its
# table is over the fold's budget): the first 1000 queries two rounds
# interleaved, then the whole split base then new, results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
e=.gpudata/exp
B=.fbdata/bundles
for v in base new; do
  call_bundle_modules $B/v10-b16384-$v.pcb /tmp/m-$v
  ptxas -arch=sm_90 -v /tmp/m-$v/policy.ptx -o /tmp/m-$v/policy.cubin 2>&1 | grep -E "proofc_policy|Used|spill" | head -4 | sed "s/^/$v ptxas: /"
  cuobjdump -sass /tmp/m-$v/policy.cubin > /tmp/m-$v/policy.sass
  echo "$v SASS instructions: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' /tmp/m-$v/policy.sass)"
done
tar -czf $OUT/sass.tar.gz -C /tmp m-base/policy.sass m-new/policy.sass
call_reference $e/base-nf-b12288.pcb
call_outcomes base-nf-b256 $e/base-nf-b256.pcb
call_outcomes new-nf-b12288 $e/new-nf-b12288.pcb
call_outcomes new-nf-b256 $e/new-nf-b256.pcb
call_outcomes new-nf-b12288-host $e/new-nf-b12288.pcb --cond host
call_outcomes new-b12288 $e/new-b12288.pcb
S=$N/bin/proofc-session-bench
call_session_median $S $e/base-nf-b12288.pcb "warmup" > /dev/null
for round in 1 2 3; do
  for v in base-nf new-nf; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
done
echo "v10 at $(( $(date +%s) - t0 )) s"
for round in 1 2; do
  for v in base new; do
    cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
    QUERIES=1000 OUT=$OUT/$v-$round timeout 40 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'wall %.3f run %.3f setup %.3f readback %.3f compile %.3f' % (j['wall_seconds'], t['run_seconds'], t['setup_seconds'], t['readback_seconds'], t['compile_seconds']))" $OUT/$v-$round/scale-out/one.json "r$round $v" 2>/dev/null
  done
done
echo "q1000 at $(( $(date +%s) - t0 )) s"
for v in base new; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v timeout 150 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'wall', j['wall_seconds'], 'rss GiB', j['max_rss_gib'], 'timings', json.dumps(j.get('timings')))" $OUT/$v/scale-out/one.json $v 2>/dev/null
  echo "fb $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/base-2/scale-out/one.json $OUT/new-2/scale-out/one.json $OUT/base/scale-out/one.json $OUT/new/scale-out/one.json <<'PY'
import json, sys
r = []
for p in sys.argv[1:]:
    try: r.append(json.load(open(p)).get("results"))
    except Exception as e: print("missing", p, e); r.append(None)
print("q1000 results new == base:", r[1] is not None and r[1] == r[0])
print("whole split results new == base:", r[3] is not None and r[3] == r[2])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT $(cd $OUT && ls -d base* new*) 2>/dev/null; rm -rf $OUT/base* $OUT/new*
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
