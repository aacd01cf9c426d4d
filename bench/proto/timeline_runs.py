#!/usr/bin/env python3
"""Each proof-loop run of a CUPTI timeline, summed per kernel.

Reads kernel_timeline.cpp's CSV (kind,start_ns,end_ns,graph_node_id,name)
and cuts it into runs at each `proofc_init` launch (the step schedule's
setup kernel, one a run). Per run it prints the span (init's start to the
last kernel's end), the policy launches' and advance-engine launches' sums
and counts and the first policy launch; with --launches, every launch of
the last run in order. The call scripts under bench/results/ printed this
inline until 2026-12-02.

  timeline_runs.py TIMELINE.csv LABEL [--launches]
"""
import argparse
import csv


def runs(path):
    """[[(start_ns, end_ns, name)]] per run, in time order."""
    k = sorted((int(r[1]), int(r[2]), r[4]) for r in csv.reader(open(path))
               if len(r) >= 5 and r[0] == "kernel")
    starts = [i for i, x in enumerate(k) if x[2] == "proofc_init"]
    return [k[i:j] for i, j in zip(starts, starts[1:] + [len(k)])]


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("timeline")
    a.add_argument("label")
    a.add_argument("--launches", action="store_true")
    o = a.parse_args()
    every = runs(o.timeline)
    if not every:
        raise SystemExit(f"timeline_runs: no proofc_init in {o.timeline}")
    us = lambda xs: sum(e - s for s, e, _ in xs) / 1e3
    for n, run in enumerate(every):
        pol = [x for x in run if x[2].startswith("proofc_policy")]
        adv = [x for x in run if x[2] == "proofc_advance_engine"]
        first = (pol[0][1] - pol[0][0]) / 1e3 if pol else float("nan")
        print(f"{o.label} run {n}: span {(run[-1][1] - run[0][0]) / 1e3:.1f} "
              f"us; policy {us(pol):.1f} us ({len(pol)}), first "
              f"{first:.1f} us; advance-engine {us(adv):.1f} us "
              f"({len(adv)})")
    if o.launches:
        print(f"{o.label} last run's launches (us):", " ".join(
            f"{name.replace('proofc_', '')[:6]}:{(e - s) / 1e3:.0f}"
            for s, e, name in every[-1]))


if __name__ == "__main__":
    main()
