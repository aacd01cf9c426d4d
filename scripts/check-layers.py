#!/usr/bin/env python3
"""The runtime's folders depend one way (docs/architecture.md, "Layers").

Reads every #include "..." line under ROOT/runtime (or the tree given) and
fails, naming file:line, when
  - a folder of runtime/src includes one of a higher layer, or a sibling of
    its own layer (host and cuda never include each other):
        support < data < bundle, cuda/kernels < host, cuda < outputs < session
  - runtime/src or runtime/include includes the tooling ("tooling/...");
  - the contract (runtime/contract) includes anything but the C++ standard
    library and other contract headers;
  - anything under runtime/ reaches outside it ("../", lib/, include of the
    compiler's proofc/Dialect, proofc/Target, ...).
The public headers (proofc/runtime/...) and the contract's
(proofc/contract/...) may be included from every layer.

usage: check-layers.py [RUNTIME_DIR]   (default: the runtime/ of this checkout)
"""
import os
import re
import sys

LAYERS = {
    "support": 0,
    "data": 1,
    "bundle": 2,
    "cuda/kernels": 2,
    "host": 3,
    "cuda": 3,
    "outputs": 4,
    "session": 5,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(rel):
    """The layer folder of a path relative to runtime/src."""
    if rel.startswith("cuda/kernels/"):
        return "cuda/kernels"
    return rel.split("/", 1)[0]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    runtime = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "runtime")
    runtime = os.path.normpath(runtime)
    errors = []
    for base, _, files in os.walk(runtime):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp", ".cu", ".inc")):
                continue
            path = os.path.join(base, name)
            rel = os.path.relpath(path, runtime)
            part = rel.split(os.sep, 1)[0]
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
            for number, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                where = f"runtime/{rel}:{number}"
                if inc.startswith("../") or "/../" in inc or inc.startswith(
                        ("lib/", "proofc/Dialect/", "proofc/Target/",
                         "proofc/Conversion/", "proofc/Transforms/",
                         "mlir/", "llvm/")):
                    errors.append(f"{where}: includes \"{inc}\", outside the runtime")
                    continue
                if part == "contract":
                    if not inc.startswith("proofc/contract/"):
                        errors.append(f"{where}: the contract includes \"{inc}\" "
                                      "(only the standard library and proofc/contract/)")
                    continue
                if inc.startswith(("proofc/runtime/", "proofc/contract/")):
                    continue
                if part in ("src", "include") and inc.startswith("tooling/"):
                    errors.append(f"{where}: the runtime includes the tooling \"{inc}\"")
                    continue
                if part != "src":
                    continue
                src_rel = os.path.relpath(path, os.path.join(runtime, "src"))
                mine = folder_of(src_rel)
                theirs = folder_of(inc) if "/" in inc else mine
                if mine not in LAYERS:
                    errors.append(f"{where}: runtime/src/{mine} is in no layer (scripts/check-layers.py)")
                    continue
                if theirs == mine:
                    continue
                if theirs not in LAYERS:
                    errors.append(f"{where}: includes \"{inc}\", in no layer of the runtime")
                elif LAYERS[theirs] >= LAYERS[mine]:
                    errors.append(f"{where}: {mine}/ includes \"{inc}\" of {theirs}/, "
                                  "which is not below it (support < data < bundle, "
                                  "cuda/kernels < host, cuda < outputs < session)")
    for e in sorted(errors):
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} include(s) break the runtime's layers")
        return 1
    print("check-layers: the runtime's folders depend one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
