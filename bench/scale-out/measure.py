#!/usr/bin/env python3
"""Runs one scale-out configuration and records what bench/RESULTS.md reports.

Why a wrapper: the issue's targets are end-to-end wall time against the GPU
run time the report records, the host's max RSS over every process of the
run (mpirun's ranks included: RUSAGE_CHILDREN is the largest waited-for
descendant) and each GPU's peak memory (nvidia-smi sampled every 0.2 s).

  measure.py NAME OUT_JSON -- COMMAND...

BENCH_GPUS (default 1) is the GPUs the run uses. The command must write its report to $REPORT (set here); the record holds
the report's metrics, rank_metrics and pykeen so that runs can be compared
exactly (compare.py).
"""
import json
import os
import resource
import subprocess
import sys
import threading
import time


def read_gpus():
    """{GPU index: memory used in MiB} from nvidia-smi; {} when it fails."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,memory.used",
             "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=5).stdout
        return {int(i): int(u) for i, u in
                (line.split(",") for line in out.strip().splitlines())}
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}


def sample_gpus(stop, peaks):
    while not stop.is_set():
        for index, used in read_gpus().items():
            peaks[index] = max(peaks.get(index, 0), used)
        stop.wait(0.2)


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: measure.py NAME OUT_JSON -- COMMAND...")
    name, out_json, command = sys.argv[1], sys.argv[2], sys.argv[4:]
    report = os.path.splitext(out_json)[0] + "-report.json"
    env = dict(os.environ, REPORT=report)
    idle = read_gpus()  # the GPUs' memory before the run
    stop = threading.Event()
    peaks = {}
    sampler = threading.Thread(target=sample_gpus, args=(stop, peaks))
    sampler.start()
    start = time.monotonic()
    rc = subprocess.run(command, env=env).returncode
    wall = time.monotonic() - start
    stop.set()
    sampler.join()
    maxrss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    record = {"name": name, "gpus": int(os.environ.get("BENCH_GPUS", "1")),
              "command": command, "rc": rc,
              "wall_seconds": wall, "max_rss_gib": maxrss_kib / 2**20,
              "gpu_peak_mib": {str(k): v for k, v in sorted(peaks.items())},
              "gpu_idle_mib": {str(k): v for k, v in sorted(idle.items())}}
    if rc == 0 and os.path.exists(report):
        with open(report) as f:
            r = json.load(f)
        record["timings"] = r.get("timings")
        record["candidates"] = r.get("metrics", {}).get("candidates")
        record["device"] = r.get("device")
        record["results"] = {k: r.get(k) for k in
                             ("metrics", "rank_metrics", "pykeen")}
        run = (r.get("timings") or {}).get("run_seconds")
        # An MPI report sums the ranks' run times: no single GPU run to
        # compare the wall time with.
        if run and "mpi" not in r:
            record["end_to_end_over_run"] = wall / run
    with open(out_json, "w") as f:
        json.dump(record, f, indent=2)
    print(json.dumps({k: v for k, v in record.items() if k != "results"},
                     indent=1))
    sys.exit(rc)


if __name__ == "__main__":
    main()
