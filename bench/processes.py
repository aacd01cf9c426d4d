"""The bench's processes, time budget and GPU memory watcher.

Split from bench.py (the benchmark itself): running one command with a log
and a timeout (run_cmd, Finished), the whole run's time budget (Budget),
nvidia-smi's memory.used peak during a run (GpuMemory), and reading a
tool's JSON.
"""
import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from typing import Dict, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESERVE_S = 20.0  # kept back for writing the JSON, the table and the tarball


class Budget:
    def __init__(self, seconds: float):
        self.start = time.monotonic()
        self.deadline = self.start + seconds

    def left(self) -> float:
        return self.deadline - time.monotonic() - RESERVE_S

    def elapsed(self) -> float:
        return time.monotonic() - self.start


class Finished:
    def __init__(self, rc: Optional[int], seconds: float, timed_out: bool, log: str):
        self.rc, self.seconds, self.timed_out, self.log = rc, seconds, timed_out, log

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out

    def why(self) -> str:
        if self.timed_out:
            return f"killed after {self.seconds:.0f} s (time budget)"
        return f"exit {self.rc}: {last_line(self.log)}"


def last_line(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        return "(no log)"
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["(empty log)"])[-1][:300]


def run_cmd(cmd: List[str], log: str, env: Dict[str, str], timeout: float) -> Finished:
    """Runs cmd in its own process group (so a timeout also ends the
    children it spawned, e.g. Inductor's compile workers); stdout and stderr
    go to log."""
    t0 = time.monotonic()
    with open(log, "w", encoding="utf-8") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=max(1.0, timeout))
            return Finished(rc, time.monotonic() - t0, False, log)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return Finished(None, time.monotonic() - t0, True, log)


class GpuMemory:
    """nvidia-smi memory.used sampled every 50 ms while a run lasts; the
    peak minus the value before it (None without nvidia-smi)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and shutil.which("nvidia-smi") is not None
        self.base = self.peak = None
        self.proc = self.thread = None

    @staticmethod
    def _query() -> Optional[int]:
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits",
                                  "-i", "0"], capture_output=True, text=True, timeout=10).stdout
            return int(out.split()[0])
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            return None

    def __enter__(self):
        if not self.enabled:
            return self
        self.base = self._query()
        self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits",
                                      "-i", "0", "-lms", "50"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)

        def read():
            for line in self.proc.stdout:
                try:
                    value = int(line.strip())
                except ValueError:
                    continue
                self.peak = value if self.peak is None else max(self.peak, value)
        self.thread = threading.Thread(target=read, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.thread.join(timeout=5)
        return False

    def delta_bytes(self) -> Optional[int]:
        if self.base is None or self.peak is None:
            return None
        return max(0, self.peak - self.base) * 1024 * 1024


def read_json(path: str) -> Optional[Dict]:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return None


