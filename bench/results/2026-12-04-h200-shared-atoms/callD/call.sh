#!/usr/bin/env bash
# Call D: call C's change in the unfolded embedding alone (`warpGoals`;
# the folded embedding as e9ec923 has it), "new", against e9ec923's
# bundles, "base": does skipping the padding atoms' table reads help
# fb15k-237, whose kernel runs the unfolded form, once the folded form's
# branches are out of its kernel? V10 (kinship 100 x 100): outcomes of
# new at 12288, 256 and with --cond host against base 12288's, and new
# unfolded (--no-atom-layer-table, "-nf") against base-nf's; session
# bench at 12288 (three rounds), nf 12288 and 256 (two). fb15k-237's
# whole split (B = 16384) base then new, results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
e=.gpudata/exp
B=.fbdata/bundles
call_reference $e/base-nf-b12288.pcb
call_outcomes new-nf-b12288 $e/new-nf-b12288.pcb
call_reference $e/base-b12288.pcb
for v in new-b12288 new-b256; do call_outcomes $v $e/$v.pcb; done
call_outcomes new-b12288-host $e/new-b12288.pcb --cond host
S=$N/bin/proofc-session-bench
call_session_median $S $e/base-b12288.pcb "warmup" > /dev/null
for round in 1 2 3; do
  for v in base new; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
done
for round in 1 2; do
  for v in base-nf new-nf; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
  for v in base new; do call_session_median $S $e/$v-b256.pcb "$v b256 r$round"; done
done
echo "v10 at $(( $(date +%s) - t0 )) s"
for v in base new; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v timeout 150 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'wall', j['wall_seconds'], 'rss GiB', j['max_rss_gib'], 'timings', json.dumps(j.get('timings')))" $OUT/$v/scale-out/one.json $v 2>/dev/null
  echo "fb $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/base/scale-out/one.json $OUT/new/scale-out/one.json <<'PY'
import json, sys
r = []
for p in sys.argv[1:]:
    try: r.append(json.load(open(p)).get("results"))
    except Exception as e: print("missing", p, e); r.append(None)
print("results new == base:", r[1] is not None and r[1] == r[0])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT base new 2>/dev/null; rm -rf $OUT/base $OUT/new
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
