#!/usr/bin/env python3
"""The test MRR of weights files by the protocol of ../shared/weights/README.md, for the training bench.

The protocol, written once here for bench/training: test split, every query,
100 corruptions per query and side, seed 0, greedy, filtered, both modes:
proofc.Evaluator(program, data, split="test", corruptions=100, seed=0)
.evaluate(weights)["metrics"]["both"]["mrr"]. One evaluator is loaded for
all the files of a dataset.

    python3 bench/training/scoring.py PROGRAM DATA --device D FILE... > mrr.json

prints {"FILE": MRR, ...} (JSON); a FILE that does not exist maps to null.
"""

import argparse
import json
import os
import sys

import proofc

TEST_CORRUPTIONS = 100
TEST_SEED = 0


def mrrs_on_test(program, data, weights, device):
    """The test MRR of each weight set (a path or a state dict)."""
    with proofc.Evaluator(program, data, split="test", corruptions=TEST_CORRUPTIONS,
                          seed=TEST_SEED, device=device) as ev:
        return [float(ev.evaluate(w)["metrics"]["both"]["mrr"]) for w in weights]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("program")
    p.add_argument("data")
    p.add_argument("files", nargs="+")
    p.add_argument("--device", default="auto")
    args = p.parse_args(argv)
    present = [f for f in args.files if os.path.exists(f)]
    mrrs = dict(zip(present, mrrs_on_test(args.program, args.data, present, args.device)))
    json.dump({f: mrrs.get(f) for f in args.files}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
