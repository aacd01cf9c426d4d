#!/usr/bin/env python3
"""The host backend's step memo, off against on, in one run of this script.

Runs `proofc run --device cpu` on each workload with --memo-entries 0 (off)
and -1 (auto), interleaved for --rounds rounds, and prints per workload the
backend's run seconds (the report's timings.run_seconds: median and range),
the ratio of the medians, each process's peak RSS, and whether the outcomes
TSVs are byte-identical (they must be: a step taken from the memo is the
step computed, runtime/src/host/StepMemo.h). Exits 1 on any difference.

Usage (from the repository root, after the build):
  /usr/bin/python3 bench/host/memo.py [--proofc build/bin/proofc]
      [--shared ../shared] [--rounds 3] [--threads 0] [--work DIR]
Results: bench/RESULTS.md, "The host backend's step memo".
"""
import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import tempfile

# name, dataset, weights (None: init-weights seed 0), queries, corruptions
WORKLOADS = [
    ("V10 kinship", "kinship", "kinship", 100, 100),
    ("family", "family", "family", 100, 100),
    ("wn18rr trained", "wn18rr", "wn18rr", 100, 100),
    ("fb15k-237 random, 2 queries, every corruption", "fb15k-237", None, 2, 0),
]


def run(cmd):
    """Runs cmd; returns its peak RSS in MiB (os.wait4's rusage)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{err.decode()}")
    return usage.ru_maxrss / 1024.0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--proofc", default=os.path.join(root, "build/bin/proofc"))
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="memo-bench-")
    os.makedirs(work, exist_ok=True)
    program = os.path.join(root, "examples", "v10.mlir")
    rows, same_all = [], True
    for name, data, weights, queries, corruptions in WORKLOADS:
        data_dir = os.path.join(args.shared, "data", data)
        if weights:
            weights_file = os.path.join(args.shared, "weights",
                                        weights + ".safetensors")
        else:
            weights_file = os.path.join(work, data + "-seed0.safetensors")
            subprocess.run([args.proofc, "init-weights", program, "--data",
                            data_dir, "-o", weights_file, "--seed", "0"],
                           check=True, stdout=subprocess.DEVNULL)
        times = {0: [], -1: []}
        rss = {0: [], -1: []}
        candidates = None
        for r in range(args.rounds):
            for memo in (0, -1):
                tag = f"{data}-m{memo}-r{r}"
                report = os.path.join(work, tag + ".json")
                outcomes = os.path.join(work, f"{data}-m{memo}.tsv")
                rss[memo].append(run([
                    args.proofc, "run", program, "--data", data_dir,
                    "--weights", weights_file, "--queries", str(queries),
                    "--corruptions", str(corruptions), "--device", "cpu",
                    "--threads", str(args.threads), "--memo-entries",
                    str(memo), "--report", report, "--outcomes", outcomes]))
                with open(report) as f:
                    rep = json.load(f)
                times[memo].append(rep["timings"]["run_seconds"])
                candidates = rep["metrics"]["candidates"]
        same = filecmp.cmp(os.path.join(work, f"{data}-m0.tsv"),
                           os.path.join(work, f"{data}-m-1.tsv"),
                           shallow=False)
        same_all = same_all and same
        off, on = statistics.median(times[0]), statistics.median(times[-1])
        rows.append((name, candidates, off, min(times[0]), max(times[0]), on,
                     min(times[-1]), max(times[-1]), off / on, max(rss[0]),
                     max(rss[-1]), same))
    print(f"proofc: {args.proofc}; rounds {args.rounds}, threads "
          f"{args.threads or os.cpu_count()} (0: every core); work {work}")
    print("| workload | candidates | memo off: run s (range) | memo on | "
          "off / on | peak RSS off, on (MiB) | outcomes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (name, cands, off, offlo, offhi, on, onlo, onhi, ratio, rss_off,
         rss_on, same) in rows:
        print(f"| {name} | {cands:,} | "
              f"{off:.3f} ({offlo:.3f}-{offhi:.3f}) | "
              f"{on:.3f} ({onlo:.3f}-{onhi:.3f}) | {ratio:.2f}x | "
              f"{rss_off:.0f}, {rss_on:.0f} | "
              f"{'identical' if same else 'DIFFERENT'} |")
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main())
