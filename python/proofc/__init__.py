"""proofc from Python: evaluate policies of the proofc prover in a loop.

``proofc.Evaluator`` binds a compiled program (a ``.pcb`` bundle, or ``.mlir``
compiled on the fly), a dataset, its candidates and a device once, then
evaluates any number of weight sets -- numpy arrays, torch tensors on the CPU
or the evaluator's GPU (read in place), or safetensors files -- returning the
report's metrics and the per-candidate outcomes. docs/python.md has the loop.

``proofc.train(program, data, out, updates=...)`` trains the policy with
the REINFORCE recipe of the shipped weights (rollouts from proofc, the
learner in PyTorch; docs/training.md); ``proofc train`` is its command line.
``Evaluator.rollouts`` runs episodes for a learner (docs/rollouts.md), its
result a ``proofc.rollouts.Trajectories``.

``proofc.torch`` (the reference policy as a ``torch.nn.Module``),
``proofc.safetensors``, ``proofc.program``, ``proofc.rollouts``,
``proofc.training`` and ``proofc.train`` are imported on first use, so
``import proofc`` stays cheap and does not need torch.
"""
import importlib as _importlib

from proofc._core import MODE_NAMES, STATUS_NAMES

try:  # the package's exception, whose subclass the runtime's errors are
    from proofc.errors import Error
except ImportError:
    from proofc._core import Error
from proofc._evaluator import Evaluator

__all__ = ["Evaluator", "Error", "STATUS_NAMES", "MODE_NAMES"]

# The pure-Python modules, imported when first named (PEP 562).
_LAZY_SUBMODULES = ("torch", "safetensors", "program", "rollouts", "training")


def __getattr__(name):
    if name == "train":  # proofc.training.train (needs torch)
        return __getattr__("training").train
    if name in _LAZY_SUBMODULES:
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise  # the module is there; something it needs is not
            raise AttributeError(
                f"module {__name__!r} has no attribute {name!r} "
                f"(this installation lacks proofc/{name}.py)") from None
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_LAZY_SUBMODULES) + ["train"])
