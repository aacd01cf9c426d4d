#!/usr/bin/env python3
"""The training bench's learning curves: valid MRR against wall time, both trainers, one panel per dataset.

Reads training-bench.json (bench/training/report.py) and writes a PNG with
matplotlib (here, not on the GPU machine:
`apt-get install python3-matplotlib`, then /usr/bin/python3). Each
checkpoint is a point at its wall seconds since the trainer's start
(loading excluded, scoring included); `proofc train`'s two variants (il,
then rl from the initial weights) are drawn as two lines, the port
trainer's (rl) as one; a dotted line marks the shipped file's test MRR for
reference (a test MRR, not a valid one).

    /usr/bin/python3 bench/training/plot.py training-bench.json -o training-curves.png
"""

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {("proofc", "il"): ("proofc train, il", "tab:blue", "-"),
         ("proofc", "rl"): ("proofc train, rl", "tab:green", "-"),
         ("port", "rl"): ("port trainer, rl", "tab:red", "--")}


def plot(result: dict, path: str):
    datasets = list(result["datasets"].items())
    fig, axes = plt.subplots(1, max(len(datasets), 1), figsize=(5.5 * max(len(datasets), 1), 4),
                             squeeze=False)
    for ax, (ds, entry) in zip(axes[0], datasets):
        for trainer, run in entry["runs"].items():
            for variant in ("il", "rl"):
                points = [c for c in run["curve"] if c["variant"] == variant]
                if not points:
                    continue
                label, color, line = STYLE[(trainer, variant)]
                updates = max(c["update"] for c in points)
                ax.plot([c["seconds"] for c in points], [c["valid_mrr"] for c in points],
                        line, color=color, marker=".", label=f"{label} ({updates} updates)")
        if entry["shipped_test_mrr"] is not None:
            ax.axhline(entry["shipped_test_mrr"], color="gray", linestyle=":",
                       label=f"shipped file, test MRR {entry['shipped_test_mrr']:.4f}")
        ax.set_title(ds)
        ax.set_xlabel("wall seconds since start (scoring included)")
        ax.set_ylabel("valid MRR (first 300 queries)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(f"Learning curves, {result['device']}, budget {result['budget']:g} s of "
                 f"training per run")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("json")
    p.add_argument("-o", "--out", default="training-curves.png")
    args = p.parse_args(argv)
    with open(args.json, encoding="utf-8") as f:
        plot(json.load(f), args.out)


if __name__ == "__main__":
    main()
