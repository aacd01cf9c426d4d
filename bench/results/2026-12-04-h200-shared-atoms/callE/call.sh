#!/usr/bin/env bash
# Call E: the unfolded embedding's table reads predicated instead of
# branched (Embedding.cpp's readRowIf, `callE/predicated-loads.patch`: a
# row's padding atoms read no table rows, TRUE/FALSE no argument rows, by
# `@p ld.global.nc.v4.f32` in inline PTX; every atom's adds as before),
# "new", against e9ec923's bundles, "base". V10 (kinship 100 x 100):
# outcomes of new unfolded (--no-atom-layer-table) at 12288 against
# base-nf's, of new folded at 12288 and 256 against base 12288's; session
# bench unfolded at 12288, two rounds. fb15k-237's whole split (B =
# 16384) base then new, results compared.
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
S=$N/bin/proofc-session-bench
for round in 1 2; do
  for v in base-nf new-nf; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
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
