"""The command line of `proofc train` (`python -m proofc.training`, which the C++ driver runs).

    proofc train PROGRAM --data DIR -o OUT.safetensors (--updates N | --budget S) [options]

The options are proofc.train's keywords (docs/training.md). Errors end as the
driver's do: one `proofc: error: <message>` line on stderr and exit code 1
(a bad option included; argparse's usage lines are not printed); an
interrupted run prints `proofc: interrupted by SIGINT` and exits 130, having
written nothing. On success one line on stdout names the file written, the
checkpoint chosen and its valid MRR.
"""

import argparse
import sys
from typing import List, Optional

from proofc.errors import Error
from proofc.training.options import (CPU_DEFAULTS, GPU_DEFAULTS, VARIANTS, TrainOptions,
                                     check_paths)

PROG = "proofc train"
DEFAULTS = TrainOptions()  # the defaults, written once in options.py


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parser() -> _Parser:
    p = _Parser(prog=PROG, description=(
        "Train the policy of PROGRAM (the spec §4 mlp-dot policy) on a dataset with the "
        "recipe of the shipped weights (imitation of shortest proofs and/or REINFORCE): sampled rollouts from proofc, the learner "
        "in PyTorch, checkpoints scored by filtered MRR on the first valid queries; the best "
        "is written to OUT (docs/training.md)."))
    p.add_argument("program", metavar="PROGRAM",
                   help="the eval program (.mlir) or a compiled bundle (.pcb)")
    p.add_argument("--data", required=True, metavar="DIR", help="dataset directory")
    p.add_argument("-o", "--output", required=True, metavar="OUT.safetensors",
                   help="where the best checkpoint's weights go")
    p.add_argument("--updates", type=int, metavar="N",
                   help="REINFORCE updates of each variant (the result is then a function of "
                        "the seed)")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help="training seconds, split evenly between the variants (checkpoint "
                        "scoring excluded)")
    d, gpu, cpu = DEFAULTS, GPU_DEFAULTS, CPU_DEFAULTS
    p.add_argument("--seed", type=int, default=d.seed,
                   help=f"seed of every draw (initial weights, batches, actions); default "
                        f"{d.seed}")
    p.add_argument("--device", default=d.device,
                   help=f"auto, cpu, cuda or cuda:N (default {d.device})")
    p.add_argument("--triples-per-update", type=int, metavar="Q",
                   help=f"train triples per update, each with one corruption (default "
                        f"{gpu['triples_per_update']} on a GPU, {cpu['triples_per_update']} "
                        f"on the CPU)")
    p.add_argument("--episodes", type=int, default=d.episodes,
                   help=f"episodes per triple (default {d.episodes})")
    p.add_argument("--lr", type=float, default=d.lr,
                   help=f"Adam's learning rate (default {d.lr:g})")
    p.add_argument("--checkpoints", type=int, metavar="K",
                   help=f"evenly spaced checkpoints between the initial weights and the end "
                        f"(default {gpu['checkpoints']} on a GPU, {cpu['checkpoints']} on the "
                        f"CPU)")
    p.add_argument("--valid-queries", type=int, default=d.valid_queries, metavar="N",
                   help=f"valid queries that score a checkpoint (default {d.valid_queries})")
    p.add_argument("--variant", default=d.variant, choices=VARIANTS,
                   help="rl: REINFORCE from the initial weights; il: shortest-proof search, "
                        "imitation, then REINFORCE with the imitation loss; both: each with "
                        "half the budget (or --updates updates each), the best checkpoint of "
                        f"either (default {d.variant})")
    p.add_argument("--imitation-steps", type=int, metavar="M",
                   help="imitation steps of variant il (default: --updates N when the run "
                        "has no budget, else 20%% of the variant's budget)")
    p.add_argument("--imitation-batch", type=int, metavar="B",
                   help=f"proof steps per imitation batch (default {gpu['imitation_batch']} on "
                        f"a GPU, {cpu['imitation_batch']} on the CPU)")
    p.add_argument("--no-early-checkpoints", action="store_true",
                   help="score only the evenly spaced checkpoints, not also after the "
                        "updates 1, 2, 3, 4, 6, 8, 11, 16, ... (round(2^(j/2)))")
    p.add_argument("--log", metavar="FILE", help="write the JSON log of the checkpoints there")
    p.add_argument("--init", metavar="WEIGHTS",
                   help="start from these weights (default: init-weights' for --seed)")
    p.add_argument("--no-progress", action="store_true",
                   help="print nothing on stderr while training")
    return p


def _fail(message: str) -> int:
    sys.stderr.write(f"proofc: error: {str(message).strip()}\n")
    return 1


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = _parser().parse_args(argv)
    except _UsageError as e:
        return _fail(f"train: {e} (see proofc train --help)")
    # proofc.train's keywords that are TrainOptions' fields, checked here first.
    options = dict(updates=args.updates, budget=args.budget, seed=args.seed, device=args.device,
                   triples_per_update=args.triples_per_update, episodes=args.episodes,
                   lr=args.lr, checkpoints=args.checkpoints, valid_queries=args.valid_queries,
                   init=args.init, variant=args.variant, imitation_steps=args.imitation_steps,
                   imitation_batch=args.imitation_batch,
                   early_checkpoints=not args.no_early_checkpoints)
    try:  # the options and paths first: a typo fails before torch loads
        TrainOptions(**options).check()
        check_paths(args.data, args.output, args.log)
    except Error as e:
        return _fail(e)
    try:
        import torch  # noqa: F401
    except ImportError as e:
        return _fail(f"train: the learner needs PyTorch, which {sys.executable} cannot import "
                     f"({e}); install torch for it, or set PROOFC_PYTHON to a Python that has "
                     f"it")
    try:
        import proofc
        from proofc.training.trainer import train
    except ImportError as e:
        return _fail(f"train: cannot import the proofc package ({e})")
    try:
        result = train(args.program, args.data, args.output, log=args.log,
                       progress=not args.no_progress, **options)
    except proofc.Error as e:
        return _fail(e)
    except KeyboardInterrupt:
        sys.stderr.write("\nproofc: interrupted by SIGINT\n")
        return 130
    log = result.log
    print(f"wrote {args.output}: checkpoint {result.checkpoint} (valid MRR "
          f"{result.valid_mrr:.4f} on {log['valid_queries']} queries); {log['updates']} "
          f"updates, {log['episodes']} episodes in {log['train_seconds']:.1f} s of training")
    return 0
