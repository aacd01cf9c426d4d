#!/usr/bin/env python3
"""The training bench's result: every run's learning curve and test MRR in one JSON document and one table.

Reads what bench/training/run.sh left in its work directory, per dataset DS:
DS-proofc.json (`proofc train --log`, docs/training.md's log), DS-port.json
(bench/training/port_trainer.py --json), DS-test.json (scoring.py: test MRR
per weights file), DS-TRAINER.skipped (a run the total time could not hold).
Writes --json (the document plot.py draws) and --md (the table).

A curve point is {seconds, train_seconds, update, episodes, valid_mrr,
variant}: `seconds` is wall time since the trainer's start (after loading;
scoring included), `update` counts the REINFORCE updates of its variant
(`proofc train` runs `il` then `rl`, each from the initial weights).

Targets (issue 27): for kinship and umls the test MRR above the shipped
file's, and for kinship also >= 0.35; on the CPU, countries_s2's best valid
MRR >= 0.35. Other datasets: the test MRR at least the shipped file's.
"""

import argparse
import json
import os
from typing import Optional

TEST_FLOOR = {"kinship": 0.35}  # issue 27's absolute test MRR targets
ABOVE_SHIPPED = {"kinship", "umls"}  # issue 27: above the shipped file (elsewhere: as good)
CPU_VALID_FLOOR = {"countries_s2": 0.35}  # issue 27's CPU target (valid MRR)


def _load(path: str):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _proofc_run(log: dict) -> dict:
    curve = [{"seconds": c["seconds"], "train_seconds": c["train_seconds"],
              "update": c["update"], "episodes": c["episodes"], "valid_mrr": c["valid_mrr"],
              "variant": c["variant"], "name": c["name"]} for c in log["checkpoints"]]
    return {"updates": log["updates"], "episodes": log["episodes"],
            "train_seconds": log["train_seconds"], "seconds": log["seconds"],
            "episodes_per_second": log["episodes"] / log["train_seconds"]
            if log["train_seconds"] else None,
            "best_valid_mrr": log["chosen"]["valid_mrr"], "chosen": log["chosen"]["name"],
            "variants": log["variants"], "curve": curve}


def _port_run(record: dict) -> dict:
    curve = [dict(c, variant="rl", name=f"rl:rl{c['update']}" if c["update"] else "rl:init")
             for c in record["curve"]]
    return {"updates": record["updates"], "episodes": record["episodes"],
            "train_seconds": record["train_seconds"], "seconds": record["seconds"],
            "episodes_per_second": record["episodes_per_second"],
            "best_valid_mrr": record["chosen"]["valid_mrr"],
            "chosen": f"rl:rl{record['chosen']['update']}", "timings": record["timings"],
            "curve": curve}


def _target(ds: str, device: str, shipped: Optional[float]):
    """(text, check(test_mrr, best_valid_mrr) -> bool or None)."""
    parts, checks = [], []
    if shipped is not None and ds in ABOVE_SHIPPED:
        parts.append(f"test > {shipped:.4f}")
        checks.append(lambda test, valid: test is not None and test > shipped)
    elif shipped is not None:
        parts.append(f"test >= {shipped:.4f}")
        checks.append(lambda test, valid: test is not None and test >= shipped)
    if ds in TEST_FLOOR:
        floor = TEST_FLOOR[ds]
        parts.append(f"test >= {floor}")
        checks.append(lambda test, valid: test is not None and test >= floor)
    if device == "cpu" and ds in CPU_VALID_FLOOR:
        floor = CPU_VALID_FLOOR[ds]
        parts.append(f"valid >= {floor}")
        checks.append(lambda test, valid: valid is not None and valid >= floor)
    if not checks:
        return "-", lambda test, valid: None
    return ", ".join(parts), lambda test, valid: all(c(test, valid) for c in checks)


def build(work: str, weights_dir: str, datasets, trainers, device: str, budget: float) -> dict:
    result = {"device": device, "budget": budget, "datasets": {}}
    for ds in datasets:
        tests = _load(os.path.join(work, f"{ds}-test.json")) or {}
        shipped = tests.get(os.path.join(weights_dir, f"{ds}.safetensors"))
        entry = {"shipped_test_mrr": shipped, "runs": {}, "not_run": []}
        for trainer in trainers:
            if os.path.exists(os.path.join(work, f"{ds}-{trainer}.skipped")):
                entry["not_run"].append(trainer)
                continue
            raw = _load(os.path.join(work, f"{ds}-{trainer}.json"))
            if raw is None:
                entry["not_run"].append(trainer)  # failed: its log says why
                continue
            run = _proofc_run(raw) if trainer == "proofc" else _port_run(raw)
            run["test_mrr"] = tests.get(os.path.join(work, f"{ds}-{trainer}.safetensors"))
            entry["runs"][trainer] = run
        result["datasets"][ds] = entry
    return result


def table(result: dict) -> str:
    fmt = lambda x: "-" if x is None else f"{x:.4f}"
    lines = [f"Training bench, {result['device']}, budget {result['budget']:g} s of training "
             f"per run (scoring excluded), seed 0. Test MRR: test split, all queries, 100 "
             f"corruptions, seed 0, both modes.", "",
             "| dataset | trainer | updates | episodes | episodes/s | best valid MRR (checkpoint) "
             "| test MRR | shipped test MRR | target | met |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |"]
    names = {"proofc": "proofc train", "port": "port trainer"}
    notes = []
    for ds, entry in result["datasets"].items():
        shipped = entry["shipped_test_mrr"]
        text, check = _target(ds, result["device"], shipped)
        for trainer, run in entry["runs"].items():
            met = check(run["test_mrr"], run["best_valid_mrr"])
            rate = run["episodes_per_second"]
            lines.append(f"| {ds} | {names[trainer]} | {run['updates']} | {run['episodes']} "
                         f"| {'-' if rate is None else f'{rate:,.0f}'} "
                         f"| {fmt(run['best_valid_mrr'])} ({run['chosen']}) "
                         f"| {fmt(run['test_mrr'])} | {fmt(shipped)} | {text} "
                         f"| {'-' if met is None else 'yes' if met else 'NO'} |")
        for trainer in entry["not_run"]:
            notes.append(f"{ds}: {names[trainer]} not run or failed (its log: "
                         f"training-bench/{ds}-{trainer}.log)")
    return "\n".join(lines + ([""] + notes if notes else []) + _per_update(result)) + "\n"


def _per_update(result: dict):
    """Where an update's time went, ms per update of each variant: the
    trainers' `timings` divided by the variant's updates."""
    parts = ("draws", "rollouts", "learner", "imitation_batches")
    lines = ["", "Per REINFORCE update (ms; imitation batches: those drawn for the updates and "
             "the imitation phase together):", "",
             "| dataset | trainer | variant | updates | " + " | ".join(parts) + " |",
             "| --- | --- | --- | ---: |" + " ---: |" * len(parts)]
    for ds, entry in result["datasets"].items():
        for trainer, run in entry["runs"].items():
            variants = run.get("variants") or [dict(variant="rl", updates=run["updates"],
                                                    timings=run.get("timings", {}))]
            for v in variants:
                t, n = v.get("timings", {}), v["updates"]
                cells = ["-" if p not in t or not n else f"{1e3 * t[p] / n:.1f}" for p in parts]
                lines.append(f"| {ds} | {trainer} | {v['variant']} | {n} | " +
                             " | ".join(cells) + " |")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("work")
    p.add_argument("weights_dir", help="the shipped weights (DS.safetensors)")
    p.add_argument("--datasets", nargs="+", required=True)
    p.add_argument("--trainers", nargs="+", required=True)
    p.add_argument("--device", required=True)
    p.add_argument("--budget", type=float, required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--md", required=True)
    args = p.parse_args(argv)
    result = build(args.work, args.weights_dir, args.datasets, args.trainers, args.device,
                   args.budget)
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    text = table(result)
    with open(args.md, "w", encoding="utf-8") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
