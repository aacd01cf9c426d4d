"""The options of a training run, checked once for `proofc.train(...)` and `proofc train`.

Every number is checked here with one `proofc.Error` naming the option (the
command line's spelling, e.g. `--updates`, since both entries share these
messages); the defaults that depend on the device (triples per update and
checkpoint points, imitation batch: the README's 512, 4 and 2048 on a GPU,
64, 6 and 256 on the CPU)
are resolved by `resolve(device)` once the evaluator has chosen its device.
"""

import math
import numbers
import os
from dataclasses import asdict, dataclass
from typing import Optional

from ..errors import Error, escape

MAX_SEED = 2**64 - 1
# The README's batch and checkpoint counts per kind of device.
GPU_DEFAULTS = {"triples_per_update": 512, "checkpoints": 4, "imitation_batch": 2048}
CPU_DEFAULTS = {"triples_per_update": 64, "checkpoints": 6, "imitation_batch": 256}
VARIANTS = ("il", "rl", "both")


def _integer(name: str, value, low: int, high: Optional[int] = None) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise Error(f"{name} must be an integer, got {escape(repr(value))}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise Error(f"{name} = {value} must be {bound}")
    return int(value)


def _positive_number(name: str, value) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise Error(f"{name} must be a number, got {escape(repr(value))}")
    if not (math.isfinite(value) and value > 0):
        raise Error(f"{name} = {value} must be a finite number > 0")
    return float(value)


def _optional(check, name: str, value, *bounds):
    """None for an option left to its default (None), else check(name, value, *bounds)."""
    return None if value is None else check(name, value, *bounds)


@dataclass
class TrainOptions:
    updates: Optional[int] = None
    budget: Optional[float] = None
    seed: int = 0
    device: str = "auto"
    triples_per_update: Optional[int] = None
    episodes: int = 4
    lr: float = 3e-3
    checkpoints: Optional[int] = None
    valid_queries: int = 300
    init: Optional[str] = None
    variant: str = "both"
    imitation_steps: Optional[int] = None
    imitation_batch: Optional[int] = None
    early_checkpoints: bool = True

    def check(self) -> "TrainOptions":
        if self.updates is None and self.budget is None:
            raise Error("give the length of the run: --updates N and/or --budget SECONDS")
        self.updates = _optional(_integer, "--updates", self.updates, 1)
        self.budget = _optional(_positive_number, "--budget", self.budget)
        self.seed = _integer("--seed", self.seed, 0, MAX_SEED)
        if not isinstance(self.device, str) or not self.device:
            raise Error(f"--device must be auto, cpu, cuda or cuda:N, got "
                        f"{escape(repr(self.device))}")
        self.triples_per_update = _optional(_integer, "--triples-per-update",
                                            self.triples_per_update, 1)
        self.episodes = _integer("--episodes", self.episodes, 1)
        self.lr = _positive_number("--lr", self.lr)
        self.checkpoints = _optional(_integer, "--checkpoints", self.checkpoints, 0)
        self.valid_queries = _integer("--valid-queries", self.valid_queries, 1)
        if self.init is not None:
            self.init = os.fspath(self.init)
        if self.variant not in VARIANTS:
            raise Error(f"--variant must be il, rl or both, got {escape(repr(self.variant))}")
        self.imitation_steps = _optional(_integer, "--imitation-steps", self.imitation_steps, 0)
        self.imitation_batch = _optional(_integer, "--imitation-batch", self.imitation_batch, 1)
        if not isinstance(self.early_checkpoints, bool):
            raise Error(f"early_checkpoints must be True or False, got "
                        f"{escape(repr(self.early_checkpoints))}")
        return self

    def variants(self) -> tuple:
        """The variants run, in order (il first, as the README's table)."""
        return ("il", "rl") if self.variant == "both" else (self.variant,)

    def variant_budget(self) -> Optional[float]:
        """Each variant's training seconds: the budget split evenly."""
        if self.budget is None:
            return None
        return self.budget / len(self.variants())

    def imitation_count(self) -> Optional[int]:
        """Imitation steps of variant il: --imitation-steps, else --updates
        when the run has no budget (a function of the counts), else None
        (20 % of the variant's budget)."""
        if self.imitation_steps is not None:
            return self.imitation_steps
        return self.updates if self.budget is None else None

    def resolve(self, device: str) -> "TrainOptions":
        """The device-dependent defaults filled in for `device` ('cpu' or 'cuda:N')."""
        defaults = CPU_DEFAULTS if device == "cpu" else GPU_DEFAULTS
        if self.triples_per_update is None:
            self.triples_per_update = defaults["triples_per_update"]
        if self.checkpoints is None:
            self.checkpoints = defaults["checkpoints"]
        if self.imitation_batch is None:
            self.imitation_batch = defaults["imitation_batch"]
        return self

    def as_dict(self) -> dict:
        return asdict(self)


def check_paths(data, out, log: Optional[str]):
    """The dataset is a directory with train.tsv; the outputs' directories
    exist and are writable, and no two of them are one file. Checked before
    the run, so a bad path fails at once and nothing is written."""
    data = os.fspath(data)
    if not os.path.isdir(data):
        raise Error(f"--data {escape(data)}: not a directory")
    train = os.path.join(data, "train.tsv")
    if not os.path.isfile(train):
        raise Error(f"--data {escape(data)}: no train.tsv there (a dataset directory holds "
                    f"train.tsv, valid.tsv, test.tsv and rules.txt)")
    outputs = [("-o", os.fspath(out))] + ([("--log", os.fspath(log))] if log is not None else [])
    for flag, path in outputs:
        if not path:
            raise Error(f"{flag}: empty path")
        if os.path.isdir(path):
            raise Error(f"{flag} {escape(path)}: is a directory")
        directory = os.path.dirname(path) or "."
        if not os.path.isdir(directory):
            raise Error(f"{flag} {escape(path)}: directory {escape(directory)} does not exist")
        if not os.access(directory, os.W_OK | os.X_OK):
            raise Error(f"{flag} {escape(path)}: directory {escape(directory)} is not writable")
    if log is not None and os.path.abspath(os.fspath(log)) == os.path.abspath(os.fspath(out)):
        raise Error(f"--log and -o name the same file {escape(os.fspath(out))}")
