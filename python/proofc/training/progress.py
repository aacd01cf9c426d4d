"""The training run's progress on stderr: one redrawn line on a terminal, one line per checkpoint elsewhere.

On a terminal the line shows the updates done (of N, or the seconds of the
budget), the episodes per second of the updates so far and the last valid
MRR; it is redrawn at most 5 times a second and after each checkpoint.
Elsewhere (a pipe, a log file, CI) only the checkpoints are printed, one line
each, so logs stay short. Nothing here affects the training's results.
"""

import sys
import time
from typing import Optional


class Progress:
    def __init__(self, enabled: bool, updates: Optional[int], budget: Optional[float],
                 stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.updates, self.budget = updates, budget
        self._drawn = 0.0
        self._mrr = None
        self._width = 0
        self.variant: Optional[str] = None  # shown as "proofc train [il]: ..."

    @property
    def _name(self) -> str:
        return "proofc train" + (f" [{self.variant}]" if self.variant else "")

    def note(self, text: str):
        """A line of its own (the search's and the imitation's results)."""
        if not self.enabled:
            return
        if self.tty and self._width:
            self.stream.write("\n")
            self._width = 0
        self.stream.write(f"{self._name}: {text}\n")
        self.stream.flush()

    def _of(self, update: int, seconds: float) -> str:
        if self.updates is not None:
            return f"update {update}/{self.updates}"
        return f"update {update} ({seconds:.1f}/{self.budget:g} s)"

    def _draw(self, text: str):
        pad = max(self._width - len(text), 0)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def update(self, update: int, episodes: int, seconds: float):
        """After each update: `episodes` so far in `seconds` of training."""
        if not self.tty:
            return
        now = time.monotonic()
        if now - self._drawn < 0.2:
            return
        self._drawn = now
        rate = episodes / seconds if seconds > 0 else 0.0
        mrr = "-" if self._mrr is None else f"{self._mrr:.4f}"
        self._draw(f"{self._name}: {self._of(update, seconds)}, {rate:,.0f} episodes/s, "
                   f"last valid MRR {mrr}")

    def checkpoint(self, update: int, mrr: float, episodes: int, seconds: float, best: bool,
                   what: Optional[str] = None, same_as: Optional[str] = None):
        """`what` names a checkpoint that is not after an update (e.g. "the
        end of imitation"); `same_as` the earlier checkpoint whose weights
        these are (its score taken, not computed again)."""
        self._mrr = mrr
        if not self.enabled:
            return
        same = f" (the weights of {same_as})" if same_as else ""
        if what is not None or update == 0:
            what = what or "the initial weights"
            line = (f"{self._name}: {what}: valid MRR {mrr:.4f}{same}"
                    f"{' (best so far)' if best and update else ''}")
        else:
            rate = episodes / seconds if seconds > 0 else 0.0
            line = (f"{self._name}: {self._of(update, seconds)}: valid MRR {mrr:.4f}{same}"
                    f"{' (best so far)' if best else ''}, {episodes} episodes, "
                    f"{rate:,.0f} episodes/s")
        if self.tty:
            self._draw(line)
            self.stream.write("\n")
            self._width = 0
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self):
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
