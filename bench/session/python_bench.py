"""What one proofc.Evaluator.evaluate costs from a PyTorch loop (issue 15).

The V10 workload (kinship, the first 100 test queries, 100 corruptions) is
bound once; then CALLS weight sets -- the trained weights scaled by
(1 + 1e-3 i) on the GPU, as a training step would leave them -- are
evaluated from CUDA torch tensors, read in place. Each call is timed whole
in Python (time.perf_counter around evaluate: borrowing the tensors, the
run, the readback, the metrics, the report and its conversion to Python)
against the bare run time of the same call (the report's
timings.run_seconds). Prints one JSON object.

  PYTHONPATH=<build>/python python3 bench/session/python_bench.py \
      BUNDLE DATA WEIGHTS [--calls 20] [--queries 100] [--corruptions 100]
"""
import argparse
import json
import statistics
import time

import torch

import proofc
from proofc import safetensors


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bundle")
    p.add_argument("data")
    p.add_argument("weights")
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--corruptions", type=int, default=100)
    a = p.parse_args()

    opened = time.perf_counter()
    ev = proofc.Evaluator(a.bundle, a.data, split="test", queries=a.queries,
                          corruptions=a.corruptions, device="cuda")
    open_s = time.perf_counter() - opened
    trained = {k: torch.from_numpy(v).cuda()
               for k, v in safetensors.read(a.weights).items()}
    first = time.perf_counter()
    r = ev.evaluate(trained)  # sets the device up: timed apart
    first_ms = (time.perf_counter() - first) * 1e3
    calls = []
    for i in range(1, a.calls + 1):
        with torch.no_grad():
            weights = {k: v * (1.0 + 1e-3 * i) for k, v in trained.items()}
        torch.cuda.synchronize()  # the scaling is the training step's
        t = time.perf_counter()
        r = ev.evaluate(weights)
        call = time.perf_counter() - t
        tm = r["timings"]
        run = tm["run_seconds"]
        # The Session's own part (to the metrics, before the report's
        # text) against the whole call from Python.
        calls.append({"call_ms": call * 1e3, "run_ms": run * 1e3,
                      "session_ms": tm["total_seconds"] * 1e3,
                      "setup_ms": tm["setup_seconds"] * 1e3,
                      "readback_ms": tm["readback_seconds"] * 1e3,
                      "mrr": r["metrics"]["both"]["mrr"]})
    ratio = [c["call_ms"] / c["run_ms"] for c in calls]
    print(json.dumps({
        "device": ev.device_name, "candidates": ev.num_candidates,
        "torch": torch.__version__, "open_s": open_s,
        "first_call_ms": first_ms,
        "median_call_ms": statistics.median(c["call_ms"] for c in calls),
        "median_run_ms": statistics.median(c["run_ms"] for c in calls),
        "median_call_over_run": statistics.median(ratio),
        "max_call_over_run": max(ratio), "calls": calls}, indent=2))


if __name__ == "__main__":
    main()
