"""What one proofc.Evaluator.evaluate costs from a PyTorch loop (issue 15).

The V10 workload (kinship, the first 100 test queries, 100 corruptions) is
bound once; then CALLS weight sets -- the trained weights scaled by
(1 + 1e-3 i), as a training step would leave them -- are evaluated from
torch tensors: on the GPU (--weights-on device, the default: CUDA tensors
read in place) or on the host (--weights-on host: CPU tensors, copied,
checked and hashed for the provenance). Each call is timed whole in Python
(time.perf_counter around evaluate: borrowing the tensors, the run, the
readback, the metrics and their conversion to Python) against the bare
run time of the same call (the report's timings.run_seconds): the ratio and
the per-call overhead (call - run, ms). The whole report as a dict (made on
first need: proofc.results.Result) is asked for after the call and timed
apart. Prints one JSON object.

  PYTHONPATH=<build>/python python3 bench/session/python_bench.py \
      BUNDLE DATA WEIGHTS [--calls 20] [--queries 100] [--corruptions 100]
      [--device cuda] [--weights-on device|host]

Without a GPU: --device cpu --weights-on host.
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
    p.add_argument("--device", default="cuda")
    p.add_argument("--weights-on", choices=("device", "host"),
                   default="device")
    a = p.parse_args()
    if a.weights_on == "device" and not a.device.startswith("cuda"):
        p.error("--weights-on device needs a CUDA --device; give "
                "--weights-on host with --device cpu")
    on_gpu = a.weights_on == "device"

    opened = time.perf_counter()
    ev = proofc.Evaluator(a.bundle, a.data, split="test", queries=a.queries,
                          corruptions=a.corruptions, device=a.device)
    open_s = time.perf_counter() - opened
    trained = {k: torch.from_numpy(v).to(ev.device if on_gpu else "cpu")
               for k, v in safetensors.read(a.weights).items()}
    first = time.perf_counter()
    r = ev.evaluate(trained)  # sets the device up: timed apart
    first_ms = (time.perf_counter() - first) * 1e3
    calls = []
    for i in range(1, a.calls + 1):
        with torch.no_grad():
            weights = {k: v * (1.0 + 1e-3 * i) for k, v in trained.items()}
        if on_gpu:
            torch.cuda.synchronize()  # the scaling is the training step's
        t = time.perf_counter()
        r = ev.evaluate(weights)
        # The metrics and timings are made on first access: part of the
        # in-loop call, so inside its time.
        tm = r["timings"]
        mrr = r["metrics"]["both"]["mrr"]
        call = time.perf_counter() - t
        # What the call leaves for later (the result's dict is made on
        # first need, PyKEEN's set and the report's text with it): timed
        # apart.
        t = time.perf_counter()
        len(r)
        whole = time.perf_counter() - t
        run = tm["run_seconds"]
        # The Session's own part (to the metrics, before the report's
        # text) against the whole call from Python.
        calls.append({"call_ms": call * 1e3, "run_ms": run * 1e3,
                      "overhead_ms": (call - run) * 1e3,
                      "session_ms": tm["total_seconds"] * 1e3,
                      "setup_ms": tm["setup_seconds"] * 1e3,
                      "readback_ms": tm["readback_seconds"] * 1e3,
                      "report_dict_on_request_ms": whole * 1e3,
                      "mrr": mrr})
    ratio = [c["call_ms"] / c["run_ms"] for c in calls]
    print(json.dumps({
        "device": ev.device_name, "weights_on": a.weights_on,
        "candidates": ev.num_candidates,
        "torch": torch.__version__, "open_s": open_s,
        "first_call_ms": first_ms,
        "median_call_ms": statistics.median(c["call_ms"] for c in calls),
        "median_run_ms": statistics.median(c["run_ms"] for c in calls),
        "median_call_over_run": statistics.median(ratio),
        "median_overhead_ms": statistics.median(c["overhead_ms"]
                                                for c in calls),
        "max_call_over_run": max(ratio), "calls": calls}, indent=2))


if __name__ == "__main__":
    main()
