#!/usr/bin/env python3
"""Train the reference policy with proofc.train and print its valid MRR at every checkpoint.

The recipe of ../shared/weights/README.md (by default both variants: `il`,
shortest-proof search and imitation then REINFORCE, and `rl`, REINFORCE
only): the sampled episodes and the search run on proofc's engine, the
learner is proofc.torch.Policy, and the best checkpoint by valid MRR is
written (docs/training.md). From the
repository root, after building (the package lives in build/python):

    PYTHONPATH=build/python /usr/bin/python3 examples/train_loop.py \\
        --data ../shared/data/countries_s2 --updates 200 -o countries_s2.safetensors

`proofc train examples/v10.mlir --data DIR -o OUT --updates N` is the same
from the command line.
"""
import argparse
import os

import proofc

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--data", default="../shared/data/countries_s2")
parser.add_argument("--updates", type=int, default=200)
parser.add_argument("--device", default="auto")
parser.add_argument("--variant", default="both", choices=("il", "rl", "both"))
parser.add_argument("-o", "--output", default="trained.safetensors")
args = parser.parse_args()

program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "v10.mlir")
result = proofc.train(program, args.data, args.output, updates=args.updates,
                      device=args.device, variant=args.variant)
for c in result.log["checkpoints"]:
    print(f"{c['name']:>14}  {c['train_seconds']:7.1f} s  valid MRR "
          f"{c['valid_mrr']:.4f}{'  <- written to ' + args.output if c['chosen'] else ''}")
