#!/usr/bin/env python3
"""api_time.py - a run's driver API time by call, from kernel_timeline.cpp's
CSV recorded with PROOFC_TIMELINE_API=1: where a setup's host time goes.

  bench/proto/api_time.py TIMELINE.csv [--top N]

Prints, per driver API call name, the calls, their summed and longest
durations (ms), the largest sums first, and the span from the first to the
last record.
"""
import argparse
import collections
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timeline")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    total = collections.defaultdict(float)
    longest = collections.defaultdict(float)
    calls = collections.Counter()
    first, last = None, None
    with open(args.timeline, newline="") as f:
        for row in csv.reader(f):
            if len(row) < 5:
                continue
            start, end = int(row[1]), int(row[2])
            first = start if first is None else min(first, start)
            last = end if last is None else max(last, end)
            if row[0] != "api":
                continue
            ms = (end - start) * 1e-6
            name = row[4]
            total[name] += ms
            longest[name] = max(longest[name], ms)
            calls[name] += 1
    if not calls:
        sys.exit("api_time: no api records (record with PROOFC_TIMELINE_API=1)")
    print(f"span {((last - first) * 1e-6):.1f} ms, {sum(calls.values())} calls, "
          f"{sum(total.values()):.1f} ms in them")
    print(f"{'call':40s} {'n':>7s} {'sum ms':>10s} {'max ms':>9s}")
    for name, ms in sorted(total.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{name:40s} {calls[name]:7d} {ms:10.2f} {longest[name]:9.2f}")


if __name__ == "__main__":
    main()
