#!/usr/bin/env python3
"""Where a proof loop's span goes between its kernels.

Reads kernel_timeline.cpp's CSV (kind,start_ns,end_ns,graph_node_id,name),
splits it into calls at host gaps of more than 200 us, and for the last call
prints each kernel's count and time, the proof loop's span (the first step
kernel's start to the last one's end) against the sum of its kernels, and,
for a step schedule, each step's policy and advance-engine times and the gaps
after them. Usage: timeline_gaps.py TIMELINE.csv [...]"""
import collections
import csv
import sys

STEP = ("proofc_policy", "proofc_advance_engine")


def calls(path):
    ev = []
    for r in csv.reader(open(path)):
        if len(r) < 5:
            continue
        ev.append((int(r[1]), int(r[2]), r[0], r[4]))
    ev.sort()
    groups = [[ev[0]]]
    for e in ev[1:]:
        if e[0] - max(x[1] for x in groups[-1][-4:]) > 200_000:
            groups.append([e])
        else:
            groups[-1].append(e)
    return groups


def report(path):
    groups = calls(path)
    print(f"{path}: {len(groups)} calls")
    g = groups[-1]
    per = collections.OrderedDict()
    for s, e, kind, name in g:
        key = name if kind == "kernel" else f"{kind} {name} B"
        per.setdefault(key, []).append(e - s)
    print(f"  last call: span {(g[-1][1] - g[0][0]) / 1e3:.1f} us")
    for k, x in per.items():
        print(f"    {k[:48]:48s} {len(x):4d} x  {sum(x) / 1e3:9.1f} us")
    loop = [e for e in g if e[2] == "kernel" and e[3] in STEP]
    if not loop:
        return
    span = loop[-1][1] - loop[0][0]
    busy = sum(e[1] - e[0] for e in loop)
    gaps = [loop[i + 1][0] - loop[i][1] for i in range(len(loop) - 1)]
    print(f"  proof loop: {len(loop)} kernels, span {span / 1e3:.1f} us, "
          f"kernels {busy / 1e3:.1f} us, between them {sum(gaps) / 1e3:.1f} us "
          f"(median gap {sorted(gaps)[len(gaps) // 2] / 1e3:.2f} us, "
          f"max {max(gaps) / 1e3:.2f})" if gaps else "")
    if len(loop) > 2:
        print("    step  policy us  gap  advance us  gap")
        i = 0
        step = 0
        while i + 1 < len(loop):
            p, a = loop[i], loop[i + 1]
            if p[3] != STEP[0] or a[3] != STEP[1]:
                i += 1
                continue
            g1 = a[0] - p[1]
            g2 = loop[i + 2][0] - a[1] if i + 2 < len(loop) else 0
            step += 1
            print(f"    {step:4d} {(p[1] - p[0]) / 1e3:9.2f} {g1 / 1e3:5.2f}"
                  f" {(a[1] - a[0]) / 1e3:10.2f} {g2 / 1e3:5.2f}")
            i += 2


for p in sys.argv[1:]:
    report(p)
