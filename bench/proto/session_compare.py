#!/usr/bin/env python3
"""session_compare.py - two runtimes' session benches, side by side.

The GPU call scripts under bench/results/ run proofc-session-bench for a
"new" and an "old" runtime on the same bundle and weights (call_lib.sh's
call_session_median writes OUT/sb-<label>.json) and compare them. For each
TAG, reads OUT/sb-new-TAG.json and OUT/sb-old-TAG.json and prints each
runtime's medians of the per-call setup, run, readback, report, overhead
and whole call (ms), and whether every call's MRR is equal between the two
(the calls' weights are the same: a difference is a changed outcome).
Exits 1 when a pair's MRRs differ or a file is missing.

  bench/proto/session_compare.py OUT TAG [TAG...]
  (e.g. TAG = B8192-r1 for the labels "new B8192 r1" and "old B8192 r1")
"""
import json
import statistics
import sys

PARTS = ("setup_ms", "run_ms", "readback_ms", "report_ms", "overhead_ms",
         "call_ms")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[-1].strip())
    out, tags = sys.argv[1], sys.argv[2:]
    ok = True
    for tag in tags:
        try:
            runs = {v: json.load(open(f"{out}/sb-{v}-{tag}.json"))
                    for v in ("new", "old")}
        except OSError as e:
            print(f"{tag}: {e}")
            ok = False
            continue
        for v, j in runs.items():
            print(f"{tag} {v}: " + ", ".join(
                f"{k[:-3]} {statistics.median(c[k] for c in j['calls']):.3f}"
                for k in PARTS))
        new, old = runs["new"]["calls"], runs["old"]["calls"]
        same = len(new) == len(old) and all(
            a["mrr"] == b["mrr"] for a, b in zip(new, old))
        ok = ok and same
        print(f"{tag}: every call's MRR equal between the runtimes: {same} "
              f"({len(new)} calls; first {new[0]['mrr']}, last "
              f"{new[-1]['mrr']})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
