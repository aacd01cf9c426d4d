#!/usr/bin/env python3
"""Names the frames of bench/proto/thread_stacks.cpp's output.

Each frame line "OBJECT(+0xOFFSET)[ADDRESS]" (no exported symbol) becomes
"function (file:line) [OBJECT]" by addr2line; a line with a symbol is kept.
The threads' sections stay in their order.
  python3 bench/proto/symbolize_stacks.py stacks.txt [--addr2line PATH]
"""
import argparse
import collections
import re
import subprocess
import sys

FRAME = re.compile(r"^(?P<obj>[^()\s]+)\(\+0x(?P<off>[0-9a-f]+)\)\[0x[0-9a-f]+\]$")


def symbolize(lines, addr2line="addr2line"):
    wanted = collections.defaultdict(set)
    for line in lines:
        m = FRAME.match(line.strip())
        if m:
            wanted[m["obj"]].add(m["off"])
    names = {}
    for obj, offsets in wanted.items():
        ordered = sorted(offsets)
        try:
            out = subprocess.run([addr2line, "-f", "-C", "-e", obj]
                                 + ["0x" + o for o in ordered],
                                 capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        pairs = out.splitlines()
        for i, off in enumerate(ordered):
            if 2 * i + 1 < len(pairs):
                function, place = pairs[2 * i], pairs[2 * i + 1]
                names[(obj, off)] = f"{function} ({place.split('/')[-1]})"
    result = []
    for line in lines:
        m = FRAME.match(line.strip())
        name = names.get((m["obj"], m["off"])) if m else None
        result.append(f"  {name[:240]} [{m['obj'].split('/')[-1]}]" if name and not name.startswith("??") else line)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks")
    parser.add_argument("--addr2line", default="addr2line")
    args = parser.parse_args()
    with open(args.stacks, errors="replace") as f:
        lines = f.read().split("\n--- maps\n")[0].splitlines()
    sys.stdout.write("\n".join(symbolize(lines, args.addr2line)) + "\n")


if __name__ == "__main__":
    main()
