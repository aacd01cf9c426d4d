#!/usr/bin/env python3
"""Times a bundle's cold kernel compile without a GPU (issue 29, item 3).

The CUDA backend's cold start (runtime/src/cuda/ModuleLoader.cpp) compiles
every module of a bundle at once: each `cuda` module with NVRTC to a cubin
(a module another one links, with -rdc=true), the `ptx` module with the
driver's JIT, linking the relocatable cubins into it. This program does the
same work on a machine without a GPU, so that the pieces can be timed where
the GPU is not: NVRTC through libnvrtc, the PTX JIT and link through
nvJitLink (libnvJitLink, the same ptxas and linker the driver embeds; the
driver's own JIT is not reachable without a device, so its time is the
GPU run's `modules_seconds` to compare with). Options are the runtime's:
the module's own plus -arch=sm_XY -std=c++17 (Nvrtc::implicitOptions).

  python3 bench/proto/cold_compile.py BUNDLE.pcb [--arch 90] [--repeats 3]
      [--nvrtc-option OPT]... [--serial | --processes]

NVRTC and nvJitLink keep what they compile in the driver's compute cache
(`~/.nv/ComputeCache`, or CUDA_CACHE_PATH): run with CUDA_CACHE_DISABLE=1
(or an empty CUDA_CACHE_PATH for the first repeat alone), or every repeat
but the machine's first measures the cache (bench/results/
2026-12-02-h200-pool-tiles, calls C and D).

Prints, per repeat, each piece's seconds, each loaded module's (with the
modules it links), the wall time of the whole (parallel as the runtime
does it, or one after another with --serial) and the critical path: the
longest module, what a machine with a core per module waits (measure it
with --serial where the cores are few or busy). The PTX piece is an upper
bound of the runtime's: the driver JITs the PTX while NVRTC compiles the
linked modules, nvJitLink only after them.
"""
import argparse
import ctypes
import json
import sys
import threading
import time

CUDA_LIB = "/usr/local/cuda/lib64"



def run_all(fns, serial):
    """Runs fns each in its own thread (as the runtime compiles its modules),
    or one after another when serial; returns when all have ended."""
    threads = [threading.Thread(target=f) for f in fns]
    for t in threads:
        t.start()
        if serial:
            t.join()
    for t in threads:
        t.join()

def load(names):
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    sys.exit("cold_compile: cannot load any of " + ", ".join(names) + ": " +
             "; ".join(errors))


NVRTC = load(["libnvrtc.so.13", f"{CUDA_LIB}/libnvrtc.so.13", "libnvrtc.so"])
JITLINK = load(["libnvJitLink.so.13", f"{CUDA_LIB}/libnvJitLink.so.13"])


def nvrtc_cubin(source, name, options, arch):
    """NVRTC: source -> cubin for sm_<arch> (Nvrtc::compileToCubin)."""
    prog = ctypes.c_void_p()
    check = lambda r, what: r == 0 or sys.exit(f"NVRTC: {name}: {what}: {r}")
    check(NVRTC.nvrtcCreateProgram(ctypes.byref(prog), source.encode(),
                                   name.encode(), 0, None, None), "create")
    opts = list(options) + [f"-arch=sm_{arch}", "-std=c++17"]
    argv = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    r = NVRTC.nvrtcCompileProgram(prog, len(opts), argv)
    if r != 0:
        size = ctypes.c_size_t()
        NVRTC.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        NVRTC.nvrtcGetProgramLog(prog, log)
        sys.exit(f"NVRTC: {name}: {log.value.decode(errors='replace')}")
    size = ctypes.c_size_t()
    check(NVRTC.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "cubin size")
    cubin = ctypes.create_string_buffer(size.value)
    check(NVRTC.nvrtcGetCUBIN(prog, cubin), "cubin")
    NVRTC.nvrtcDestroyProgram(ctypes.byref(prog))
    return cubin.raw


def jit_link(ptx, cubins, arch):
    """nvJitLink: the PTX (JIT-compiled) linked with relocatable cubins."""
    handle = ctypes.c_void_p()
    opts = [f"-arch=sm_{arch}".encode()]
    argv = (ctypes.c_char_p * len(opts))(*opts)
    create = JITLINK.__nvJitLinkCreate_13_0
    add = JITLINK.__nvJitLinkAddData_13_0
    complete = JITLINK.__nvJitLinkComplete_13_0
    if create(ctypes.byref(handle), len(opts), argv) != 0:
        sys.exit("nvJitLink: create failed")
    data = ptx.encode() + b"\0"
    if add(handle, 2, data, len(data), b"policy") != 0:  # NVJITLINK_INPUT_PTX
        sys.exit("nvJitLink: PTX not accepted")
    for i, c in enumerate(cubins):
        if add(handle, 1, c, len(c), f"linked{i}".encode()) != 0:
            sys.exit("nvJitLink: cubin not accepted")
    r = complete(handle)
    if r != 0:
        size = ctypes.c_size_t()
        JITLINK.__nvJitLinkGetErrorLogSize_13_0(handle, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value + 1)
        JITLINK.__nvJitLinkGetErrorLog_13_0(handle, log)
        sys.exit(f"nvJitLink: link failed ({r}): {log.value.decode()}")
    JITLINK.__nvJitLinkDestroy_13_0(ctypes.byref(handle))


def in_processes(jobs, times):
    """Runs each job (which fills `times`) in a forked process of its own,
    all at once, and merges what each child timed: whether the modules
    contend inside one process (the runtime's threads) or only for the
    machine's cores."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()

    def child(job):
        job()
        queue.put(dict(times))  # the child's copy, this job's pieces

    procs = [ctx.Process(target=child, args=(j,)) for j in jobs]
    for proc in procs:
        proc.start()
    merged = {}
    for _ in procs:
        merged.update(queue.get())
    for proc in procs:
        proc.join()
    return merged


def compile_all(bundle, arch, extra, serial, processes=False):
    """Every module as ModuleLoader does it; returns {piece: seconds}."""
    modules = {m["name"]: m for m in bundle["modules"]}
    linked = {n for m in modules.values() for n in m.get("link", [])}
    times, lock = {}, threading.Lock()

    def timed(piece, fn, *args):
        t = time.perf_counter()
        result = fn(*args)
        with lock:
            times[piece] = time.perf_counter() - t
        return result

    def cuda(m, relocatable):
        opts = list(m["options"]) + list(extra)
        if relocatable:
            opts.append("-rdc=true")
        return timed(f"nvrtc {m['name']}", nvrtc_cubin, m["source"],
                     m["name"], opts, arch)

    def ptx(m):
        cubins = [None] * len(m.get("link", []))

        def one(i, n):
            cubins[i] = cuda(modules[n], True)

        run_all([lambda i=i, n=n: one(i, n)
                 for i, n in enumerate(m.get("link", []))], serial)
        timed(f"ptx jit+link {m['name']}", jit_link, m["source"], cubins, arch)

    jobs = []
    for m in modules.values():
        if m["name"] in linked:
            continue
        if m["format"] == "cuda":
            job = lambda m=m: cuda(m, False)
        else:
            job = lambda m=m: ptx(m)
        # A loaded module's whole compile (with the modules it links).
        jobs.append(lambda m=m, job=job: timed(f"module {m['name']}", job))
    start = time.perf_counter()
    if processes:
        times.update(in_processes(jobs, times))
    else:
        run_all(jobs, serial)
    times["wall"] = time.perf_counter() - start
    # With every module in its own thread on idle cores, the wait is the
    # longest module (the runtime's modules_seconds, less the loads).
    times["critical path"] = max(v for k, v in times.items()
                                 if k.startswith("module "))
    return times


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundle")
    p.add_argument("--arch", default="90")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--nvrtc-option", action="append", default=[],
                   help="an option added to every NVRTC compile")
    p.add_argument("--serial", action="store_true",
                   help="one piece after another (each piece alone)")
    p.add_argument("--processes", action="store_true",
                   help="each module at once in a forked process of its own")
    a = p.parse_args()
    with open(a.bundle) as f:
        bundle = json.load(f)
    for r in range(a.repeats):
        times = compile_all(bundle, a.arch, a.nvrtc_option, a.serial,
                            a.processes)
        print(f"repeat {r}: " + ", ".join(f"{k} {v:.3f} s"
                                          for k, v in sorted(times.items())))


if __name__ == "__main__":
    main()
