"""The README's Python loop, run from an install prefix alone (ctest
package.python-install, tools/Install.cmake).

Usage: python3 ReadmeFromPrefix.py SOURCE_DIR PREFIX SHARED_DIR CACHE_DIR

ctest runs it with PYTHONPATH set to the prefix's package directory and
nothing else: PROOFC_BIN, PROOFC_BIN_DIR and PROOFC_CACHE_DIR unset and PATH
without the build's bin/. It takes the ```python block under "## Use from
Python" in README.md as it is, defines the `train_one_epoch` the README
leaves to the reader as a no-op, points `../shared` at SHARED_DIR, and runs
it in SOURCE_DIR (where its `examples/v10.mlir` is). It fails unless
`proofc` is the prefix's package, the `proofc` compiler it runs is the
prefix's (so the program is really compiled from there: the bundle cache is
a fresh CACHE_DIR) and every epoch printed an MRR.
"""
import contextlib
import io
import os
import pathlib
import re
import shutil
import sys


def fail(message):
    print(f"ReadmeFromPrefix: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    source, prefix, shared, cache = map(pathlib.Path, sys.argv[1:5])
    readme = (source / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Use from Python", 1)
    if len(section) != 2:
        fail("README.md has no '## Use from Python' section")
    block = re.search(r"```python\n(.*?)```", section[1], re.S)
    if not block:
        fail("README.md's '## Use from Python' has no ```python block")
    snippet = block.group(1).replace("../shared", str(shared))

    # The bundle cache starts empty, so that the program is compiled by the
    # prefix's proofc (a cached bundle would hide a missing compiler).
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["PROOFC_CACHE_DIR"] = str(cache)
    os.chdir(source)

    import proofc
    from proofc import program
    package = pathlib.Path(proofc.__file__).resolve().parent
    if prefix.resolve() not in package.parents:
        fail(f"imported proofc from {package}, not from the prefix {prefix}")
    compiler = pathlib.Path(program.find_binary("proofc")).resolve()
    if compiler != (prefix / "bin" / "proofc").resolve():
        fail(f"the package finds proofc at {compiler}, not in {prefix}/bin")

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("def train_one_epoch(policy):\n    pass\n" + snippet,
                     "README.md", "exec"), {"__name__": "__readme__"})
    lines = out.getvalue().splitlines()
    print(out.getvalue(), end="")
    if len(lines) != 10 or not all(re.fullmatch(r"\d+ 0\.\d+(e-\d+)?|\d+ 1\.0", l)
                                   for l in lines):
        fail(f"expected 10 lines '<epoch> <mrr>', got {lines!r}")
    bundles = list(cache.rglob("*.pcb"))
    if not bundles:
        fail(f"no bundle was compiled into {cache}")
    print(f"ReadmeFromPrefix: the README's loop ran from {prefix} "
          f"(proofc {compiler}, bundle {bundles[0].name})")


if __name__ == "__main__":
    main()
