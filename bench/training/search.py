#!/usr/bin/env python3
"""The imitation warm start's search, whole levels against pieces, in one run of this script.

Runs `proofc.training.search.search` over every train triple of each
dataset in a child process, once with each level expanded by one derive
call (`--piece-states` 2^62: what the search did before 2026-12-05) and
once in pieces of whole triples (the default, search.PIECE_STATES),
interleaved for --rounds rounds, and prints per dataset the search's
seconds (median and range), each process's peak RSS, the proofs found and
whether both modes found the same paths (they must: the pieces draw their
ties in the order of one whole draw). A child is limited to --limit-gb of
address space, so that a whole-level search that would exhaust the machine
(family's takes more than 22 GB) fails alone, reported as "out of memory".
Exits 1 when the modes' paths differ.

Usage (from the repository root, after the build):
  /usr/bin/python3 bench/training/search.py [--data kinship family ...]
      [--shared ../shared] [--rounds 3] [--limit-gb 16]
Results: bench/RESULTS.md, "The warm start's search in pieces".
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

WHOLE = 1 << 62


def child(program, data, piece_states, limit_gb):
    """Runs one search; prints {seconds, found, triples, levels, digest} as
    JSON, or {"error": "out of memory"}."""
    limit = int(limit_gb * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import proofc
    from proofc.training import recipe, search
    from proofc.vocabulary import read_split
    try:
        with proofc.Evaluator(program, data, split="valid", queries=1, corruptions=1,
                              device="cpu") as ev:
            triples = recipe.TrainTriples.from_names(read_split(data, "train"), ev.entities,
                                                     ev.relations).triples
            start = time.monotonic()
            proofs = search.search(ev, triples, seed=0, piece_states=piece_states)
            seconds = time.monotonic() - start
    except MemoryError:  # numpy's, or the engine's std::bad_alloc through pybind11
        print(json.dumps({"error": "out of memory"}))
        return
    digest = hashlib.sha256(repr(proofs.paths).encode()).hexdigest()[:16]
    print(json.dumps({"seconds": seconds, "found": proofs.found, "triples": len(triples),
                      "levels": proofs.levels, "digest": digest}))


def run(args, data, piece_states):
    """One child; returns (its result dict, its peak RSS in MiB)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", data, str(piece_states),
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
    ap.add_argument("--child", nargs=2, metavar=("DATA", "PIECE_STATES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    program = os.path.join(root, "examples", "v10.mlir")
    if args.child:
        child(program, args.child[0], int(args.child[1]), args.limit_gb)
        return
    from proofc.training.search import PIECE_STATES
    modes = [("whole levels", WHOLE), (f"pieces of {PIECE_STATES} states", PIECE_STATES)]
    same_all = True
    print("| dataset | mode | search seconds (median, range) | peak RSS | proofs |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.data:
        data = os.path.join(args.shared, "data", name)
        results = {mode: [] for mode, _ in modes}
        for _ in range(args.rounds):
            for mode, piece_states in modes:
                results[mode].append(run(args, data, piece_states))
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
        same = len(digests) <= 1
        same_all &= same
        print(f"| {name} | paths | {'identical' if same else 'DIFFERENT'} | | |")
    sys.exit(0 if same_all else 1)


if __name__ == "__main__":
    main()
