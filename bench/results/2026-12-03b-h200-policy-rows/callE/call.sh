#!/usr/bin/env bash
# Call E: fb15k-237's first 2000 test queries, every filtered corruption
# (bench/scale-out/run.sh one with QUERIES=2000, as call C otherwise), at
# B = 16384, 24576 and 32768, all compiled by 2cec44c's compiler (row 52:
# the policy's tiles listed at each): with the list, more slots a step
# may now pay where the every-slot grid's idle blocks grew with B. Each
# twice, the second on the warm kernel cache. (What device time was left
# allowed no whole split.)
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
tar -xzf .fbdata/fb.tar.gz -C .fbdata
B=.fbdata/bundles
for v in b16384-new b24576 b32768 b16384-new b24576 b32768; do
  cp $B/v10-$v.pcb $B/v10-b16384.pcb
  QUERIES=2000 OUT=$OUT/$v timeout 30 bash bench/scale-out/run.sh one > /tmp/fb-$v.log 2>&1 || { echo "fb $v failed"; tail -5 /tmp/fb-$v.log; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'wall', j['wall_seconds'], 'timings', json.dumps(j.get('timings')))" $OUT/$v/scale-out/one.json $v 2>/dev/null
done
python3 - $OUT/b16384-new/scale-out/one.json $OUT/b24576/scale-out/one.json $OUT/b32768/scale-out/one.json <<'PY'
import json, sys
r = []
for p in sys.argv[1:]:
    try: r.append(json.load(open(p)).get("results"))
    except Exception as e: print("missing", p, e); r.append(None)
print("results equal to b16384's:", [x is not None and x == r[0] for x in r[1:]])
PY
rm -rf $OUT/*/scale-out/*.tsv 2>/dev/null
tar -czf $OUT/fb.tar.gz -C $OUT b16384-new b24576 b32768 2>/dev/null; rm -rf $OUT/b16384-new $OUT/b24576 $OUT/b32768
echo "all $(( $(date +%s) - t0 )) s"
