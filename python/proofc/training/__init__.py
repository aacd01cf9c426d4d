"""Training the §4 policy with proofc's rollouts and a PyTorch learner (issue 27, docs/training.md).

`proofc.train(program, data, out, updates=... | budget=...)` runs the REINFORCE
recipe of ../shared/weights/README.md and writes the best checkpoint;
`python -m proofc.training` (what `proofc train` runs) is its command line.
The subpackage is named `training` so that `proofc.train` stays the function.

- recipe.py: batch drawing (train triples and corruptions), rewards, baseline, loss
- checkpoints.py: when a run scores its weights, which checkpoint it keeps
- options.py: the options, checked once for Python and the command line
- trainer.py: the loop (train, TrainResult)
- progress.py: the progress line on stderr
- cli.py, __main__.py: the command line
"""
import importlib as _importlib

__all__ = ["train", "TrainResult"]


def __getattr__(name):
    # trainer.py needs torch: imported on first use, so that the command
    # line (cli.py) can report a missing torch in its own words.
    if name in __all__:
        return getattr(_importlib.import_module(f"{__name__}.trainer"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
