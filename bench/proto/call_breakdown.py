#!/usr/bin/env python3
"""call_breakdown.py - what one Session call does before and after its run,
in order, from kernel_timeline.cpp's CSV recorded with PROOFC_TIMELINE_API=1.

The session bench (bench/session/session_bench.cpp) copies each call's
weights to the device before the call (cuMemcpyHtoD, outside its timing) and
frees them after it (cuMemFree). The last call is the window from the last
such copy before the last cuGraphLaunch to the first cuMemFree after it.
Prints that window as a sequence: each driver API call (runs of one name
merged, with their count), the host time before it that no API call
covers, and the device work (kernels, memsets, copies) started in it; then
the sums by API name and by kernel. Under the tracer every API call is
longer than untraced; the order and the host gaps are what it shows.

  bench/proto/call_breakdown.py TIMELINE.csv [--graph-launch cuGraphLaunch]
"""
import argparse
import collections
import csv
import sys


def load(path):
    api, device = [], []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) < 5:
                continue
            start, end = int(row[1]), int(row[2])
            (api if row[0] == "api" else device).append(
                (start, end, row[0], row[4]))
    api.sort()
    device.sort()
    return api, device


def named(name, base):
    """CUPTI's names carry the entry point's version: cuMemFree_v2."""
    return name == base or name.startswith(base + "_v")


def window(api, launch):
    launches = [i for i, a in enumerate(api) if named(a[3], launch)]
    if not launches:
        sys.exit(f"call_breakdown: no {launch} record (record with "
                 "PROOFC_TIMELINE_API=1)")
    last = launches[-1]
    first = last
    while first > 0 and not named(api[first - 1][3], "cuMemcpyHtoD"):
        first -= 1
    end = last
    while end + 1 < len(api) and not named(api[end + 1][3], "cuMemFree"):
        end += 1
    return first, end


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("timeline")
    ap.add_argument("--graph-launch", default="cuGraphLaunch")
    args = ap.parse_args()
    api, device = load(args.timeline)
    first, end = window(api, args.graph_launch)
    calls = api[first:end + 1]
    # From the end of the weights' copy before the call (the session's own
    # work before its first API call is the first gap).
    t0 = api[first - 1][1] if first > 0 else calls[0][0]
    t1 = calls[-1][1]
    print(f"the call: {len(calls)} API calls over {(t1 - t0) / 1e3:.1f} us")
    print(f"{'at us':>8s} {'host gap':>9s} {'api us':>8s}  call (device work "
          "started in it)")
    runs = []  # [name, count, api ns, gap ns, start, device names]
    prev_end = t0
    for start, stop, _, name in calls:
        gap = max(0, start - prev_end)
        prev_end = max(prev_end, stop)
        if runs and runs[-1][0] == name:
            r = runs[-1]
            r[1] += 1
            r[2] += stop - start
            r[3] += gap
        else:
            runs.append([name, 1, stop - start, gap, start, []])
    # Device work in the window, by its start, named per run of API calls.
    starts = [r[4] for r in runs]
    for s, e, kind, name in device:
        if s < t0 or s > t1 + 5_000_000:
            continue
        i = max(0, sum(1 for x in starts if x <= s) - 1)
        label = name if kind == "kernel" else f"{kind} {name} B"
        runs[i][5].append((label, e - s))
    for name, count, ns, gap, start, work in runs:
        dev = collections.OrderedDict()
        for label, d in work:
            n, total = dev.get(label, (0, 0))
            dev[label] = (n + 1, total + d)
        devtext = "; ".join(
            f"{k[:48]} x{n} {t / 1e3:.1f} us" for k, (n, t) in dev.items())
        print(f"{(start - t0) / 1e3:8.1f} {gap / 1e3:9.1f} {ns / 1e3:8.1f}  "
              f"{name}" + (f" x{count}" if count > 1 else "") +
              (f"  ({devtext})" if devtext else ""))
    total = collections.defaultdict(lambda: [0, 0])
    gaps = 0
    prev_end = t0
    for start, stop, _, name in calls:
        gaps += max(0, start - prev_end)
        prev_end = max(prev_end, stop)
        total[name][0] += 1
        total[name][1] += stop - start
    after = api[end + 1][0] - t1 if end + 1 < len(api) else 0
    print(f"\nhost time outside API calls: {gaps / 1e3:.1f} us; then "
          f"{after / 1e3:.1f} us to the next cuMemFree (the call's report "
          "and the bench's own work)")
    for name, (n, ns) in sorted(total.items(), key=lambda kv: -kv[1][1]):
        print(f"{name:40s} {n:5d} {ns / 1e3:9.1f} us")


if __name__ == "__main__":
    main()
