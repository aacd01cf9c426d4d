#!/usr/bin/env python3
"""The imitation warm start's search, before and after 2026-12-05, in one run of this script.

Runs the search over every train triple of each dataset in a child process,
once as it was (python/tests/search_reference.py: numpy, each level
expanded by one `Evaluator.derive` call and deduplicated with np.unique)
and once as it is (`proofc.training.search.search`: the runtime's
ProofSearch in pieces of whole triples), interleaved for --rounds rounds,
and prints per dataset the search's seconds (median and range), each
process's peak RSS, the proofs found and whether both found the same paths
(they must). A child is limited to --limit-gb of address space, so that a
search that would exhaust the machine (family's before: more than 22 GB)
fails alone, reported as "out of memory". Exits 1 when the paths differ.

Usage (from the repository root, after the build):
  PYTHONPATH=build/python /usr/bin/python3 bench/training/search.py
      [--data countries_s2 kinship family] [--shared ../shared] [--rounds 3]
      [--limit-gb 16] [--modes before after]
Results: bench/RESULTS.md, "The warm start's search".
"""
import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def child(program, data, mode, limit_gb):
    """Runs one search; prints {seconds, found, triples, levels, digest} as
    JSON, or {"error": "out of memory"}."""
    limit = int(limit_gb * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import proofc
    from proofc.training import recipe, search
    from proofc.vocabulary import read_split
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "python", "tests"))
    import search_reference
    try:
        with proofc.Evaluator(program, data, split="valid", queries=1, corruptions=1,
                              device="cpu") as ev:
            triples = recipe.TrainTriples.from_names(read_split(data, "train"), ev.entities,
                                                     ev.relations).triples
            start = time.monotonic()
            run = search_reference.search if mode == "before" else search.search
            proofs = run(ev, triples, seed=0)
            seconds = time.monotonic() - start
    except MemoryError:  # numpy's, or the engine's std::bad_alloc through pybind11
        print(json.dumps({"error": "out of memory"}))
        return
    digest = hashlib.sha256(repr(proofs.paths).encode()).hexdigest()[:16]
    print(json.dumps({"seconds": seconds, "found": proofs.found, "triples": len(triples),
                      "levels": proofs.levels, "digest": digest}))


def run(args, data, mode):
    """One child; returns (its result dict, its peak RSS in MiB)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", data, mode,
           "--limit-gb", str(args.limit_gb)]
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode()
    rss = usage.ru_maxrss / 1024.0
    if proc.returncode != 0:
        if "MemoryError" in text:
            return {"error": "out of memory"}, rss
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{text}")
    return json.loads(out.decode().strip().splitlines()[-1]), rss


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["countries_s2", "kinship", "family"])
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit-gb", type=float, default=16.0)
    ap.add_argument("--modes", nargs="+", choices=["before", "after"],
                    default=["before", "after"],
                    help="which searches to run (after alone for the datasets whose numpy "
                         "search would not fit: wn18rr, fb15k-237)")
    ap.add_argument("--child", nargs=2, metavar=("DATA", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    program = os.path.join(root, "examples", "v10.mlir")
    if args.child:
        child(program, args.child[0], args.child[1], args.limit_gb)
        return
    from proofc.training.search import PIECE_STATES
    modes = [(label, which) for label, which in
             [("before: numpy, whole levels", "before"),
              (f"after: ProofSearch, pieces of {PIECE_STATES} states", "after")]
             if which in args.modes]
    same_all = True
    print("| dataset | mode | search seconds (median, range) | peak RSS | proofs |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.data:
        data = os.path.join(args.shared, "data", name)
        results = {mode: [] for mode, _ in modes}
        for _ in range(args.rounds):
            for mode, which in modes:
                results[mode].append(run(args, data, which))
        digests = set()
        for mode, _ in modes:
            runs = results[mode]
            rss = max(r for _, r in runs)
            done = [r for r, _ in runs if "error" not in r]
            if not done:
                print(f"| {name} | {mode} | out of memory (> {args.limit_gb:g} GB of address "
                      f"space) | {rss:,.0f} MiB | - |")
                continue
            seconds = [r["seconds"] for r in done]
            digests.update(r["digest"] for r in done)
            first = done[0]
            print(f"| {name} | {mode} | {statistics.median(seconds):.2f} s "
                  f"({min(seconds):.2f}-{max(seconds):.2f}) | {rss:,.0f} MiB | "
                  f"{first['found']:,} of {first['triples']:,} in {first['levels']} levels |")
        if len(modes) == 1:  # nothing to compare: the paths' digest, for another build's
            print(f"| {name} | paths | digest {', '.join(sorted(digests)) or '-'} | | |")
            same_all &= len(digests) <= 1  # the rounds agree
            continue
        compared = all(any("error" not in r for r, _ in results[mode]) for mode, _ in modes)
        same = len(digests) <= 1
        same_all &= same
        verdict = ("identical" if same else "DIFFERENT") if compared else \
            "not compared (a mode ran out of memory)"
        print(f"| {name} | paths | {verdict} | | |")
    sys.exit(0 if same_all else 1)


if __name__ == "__main__":
    main()
