#!/usr/bin/env python3
"""A whole streamed run laid out around its kernels, by device worker.

Reads kernel_timeline.cpp's CSV of a run recorded with
PROOFC_TIMELINE_MARKS=1 (kind,start_ns,end_ns,graph_node_id,name,stream;
"mark" lines at the library's load and at the program's exit) and says
where the run's wall time went: before the first device work (the
dataset, the shared lists' plan, the compile, the first block's build and
setup), the span of device work, and after it (the last readback's host
side, the ranking, the report). Within the span: the time no stream ran
anything, one stream alone, and two or more at once; per stream (a
Session's device worker each) its runs (one `proofc_init` kernel each)
and the gaps between them (its host work between blocks), and the span's
largest idle gaps. CUPTI gives a graph's kernels the stream the graph
runs them on, not the one it was launched on: a worker's `proofc_init`
launches (its runs) and its graph's kernels (its busy time) are on two
streams, paired by their times (2026-12-04b call A: streams 28 and 77 one
worker, 27 and 81 the other); streams with one run and under 1 % of the
span busy are summed, not listed. With --runs FILE also every run's start, end and
stream as TSV (seconds from the load mark).

With --workers 28+77,27+81 the streams named are grouped into workers
(w0, w1, ...; a worker's launch stream and its graph's stream) and the
others left out of the layout (their busy time said), so that the span's
"one" and "two or more" count workers.

  block_timeline.py TIMELINE.csv LABEL [--runs FILE] [--top N]
                    [--workers S+S,S+S]

Why: the whole-split runs of issue 29 spend 5-6 s of their ~61 s outside
the two workers' summed GPU run divided by two; the report's timings
cannot say whether that is the start, the end, or the hand-offs between
blocks.
"""
import argparse
import csv
import statistics


def load(path):
    """marks {name: ns}, {stream: [(start, end, name)]}"""
    marks, streams = {}, {}
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if len(r) < 5:
                continue
            if r[0] == "mark":
                marks[r[4]] = int(r[1])
            elif r[0] in ("kernel", "memset", "memcpy") and len(r) >= 6:
                name = r[4] if r[0] == "kernel" else r[0]
                streams.setdefault(r[5], []).append(
                    (int(r[1]), int(r[2]), name))
    for events in streams.values():
        events.sort()
    return marks, streams


def union(events):
    """The stream's busy intervals, merged."""
    out = []
    for s, e, _ in events:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def runs(events):
    """[(start, end)] per proofc_init: init's start to the last event
    before the next init (events before the first init: a run of their own,
    the setup's uploads)."""
    cuts = [i for i, x in enumerate(events) if x[2] == "proofc_init"]
    if not cuts or cuts[0] != 0:
        cuts = [0] + cuts
    out = []
    for i, j in zip(cuts, cuts[1:] + [len(events)]):
        out.append((events[i][0], max(e for _, e, _ in events[i:j])))
    return out


def group_workers(streams, spec):
    """`streams` grouped by `spec` ("S+S,S+S": worker i's streams), named
    w0, w1, ...: ({worker: events in time order}, the busy ns of the
    streams left out)."""
    worker_of = {st: f"w{i}" for i, group in enumerate(spec.split(","))
                 for st in group.split("+")}
    grouped, left = {}, 0
    for st, ev in streams.items():
        if st in worker_of:
            grouped.setdefault(worker_of[st], []).extend(ev)
        else:
            left += sum(e - s for s, e in union(ev))
    for ev in grouped.values():
        ev.sort()
    return grouped, left


def levels(busy):
    """Over the span of `busy` ({name: merged intervals}): first, last, the
    ns with no, one and two or more names busy ({0, 1, 2: ns}), and the
    idle gaps [(ns, start)]."""
    first = min(b[0][0] for b in busy.values())
    last = max(b[-1][1] for b in busy.values())
    edges = sorted([(s, 1) for b in busy.values() for s, _ in b] +
                   [(e, -1) for b in busy.values() for _, e in b])
    level, prev, by_level, gaps = 0, first, {}, []
    for t, d in edges:
        if t > prev:
            by_level[min(level, 2)] = by_level.get(min(level, 2), 0) + t - prev
            if level == 0:
                gaps.append((t - prev, prev))
        level += d
        prev = t
    return first, last, by_level, gaps


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("timeline")
    a.add_argument("label")
    a.add_argument("--runs", help="write every run as TSV here")
    a.add_argument("--top", type=int, default=8)
    a.add_argument("--workers", help="streams grouped into workers: "
                   "S+S,S+S (each worker's launch and graph streams)")
    o = a.parse_args()
    marks, streams = load(o.timeline)
    if o.workers:
        streams, left = group_workers(streams, o.workers)
        print(f"{o.label}: streams outside the workers: {left / 1e9:.3f} s "
              f"busy in all, left out")
    if not streams:
        raise SystemExit(f"block_timeline: no device records with a stream "
                         f"in {o.timeline}")
    busy = {s: union(ev) for s, ev in streams.items()}
    first, last, by_level, gaps = levels(busy)
    origin = marks.get("init", first)
    sec = lambda ns: ns / 1e9
    at = lambda ns: sec(ns - origin)
    since = "the load mark" if "init" in marks else "the first device work"
    print(f"{o.label}: device work {at(first):.3f} .. {at(last):.3f} s "
          f"from {since} (span {sec(last - first):.3f} s)")
    if "exit" in marks:
        print(f"{o.label}: exit at {at(marks['exit']):.3f} s: "
              f"{sec(marks['exit'] - last):.3f} s after the last device work")
    what = "worker" if o.workers else "stream"
    names = {0: "idle", 1: f"one {what}", 2: "two or more"}
    print(f"{o.label}: in the span " + ", ".join(
        f"{names[k]} {sec(v):.3f} s" for k, v in sorted(by_level.items())))
    gaps.sort(reverse=True)
    print(f"{o.label}: largest idle gaps: " + ", ".join(
        f"{sec(g) * 1e3:.1f} ms at {at(s):.3f} s" for g, s in gaps[:o.top]))
    rows = []
    quiet, quiet_busy = 0, 0
    for name, ev in sorted(streams.items(), key=lambda x: x[1][0][0]):
        rs = runs(ev)
        on = sum(e - s for s, e in busy[name])
        if len(rs) < 2 and on < (last - first) // 100:
            # A setup's uploads, or a graph's side stream with a memset at
            # either end: counted, not listed.
            quiet, quiet_busy = quiet + 1, quiet_busy + on
            continue
        spans = [sec(e - s) for s, e in rs]
        between = [sec(b[0] - a[1]) for a, b in zip(rs, rs[1:])]
        print(f"{o.label}: {what} {name}: {len(rs)} runs {at(rs[0][0]):.3f} "
              f".. {at(rs[-1][1]):.3f} s, busy {sec(on):.3f} s; run spans "
              f"median {statistics.median(spans):.3f} s (min "
              f"{min(spans):.3f}, max {max(spans):.3f}); between runs "
              f"{sum(between):.3f} s in all"
              + (f" (median {statistics.median(between) * 1e3:.1f} ms, "
                 f"max {max(between) * 1e3:.1f} ms)" if between else ""))
        rows += [(at(s), at(e), name) for s, e in rs]
    if quiet:
        print(f"{o.label}: {quiet} more streams with one run and under 1 % "
              f"of the span busy: {sec(quiet_busy):.3f} s busy in all")
    if o.runs:
        with open(o.runs, "w") as f:
            f.write("start_s\tend_s\tstream\n")
            for s, e, name in sorted(rows):
                f.write(f"{s:.6f}\t{e:.6f}\t{name}\n")


if __name__ == "__main__":
    main()
