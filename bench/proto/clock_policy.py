# Design study (docs/performance.md, "After row 39"): what one step policy
# tile's chain is made of.
#   python3 bench/proto/clock_policy.py in.pcb out.pcb [MAXGRID [STRIDE]]
#   python3 bench/proto/clock_policy.py --summary run.txt
# in.pcb compiled with the step schedule from B = 4096 (one warp a block,
# a block a listed tile: row 38). out.pcb's policy PTX reads %clock64 at
# the kernel's first instruction, after the embedding's block barrier, at
# the block after the layers, before the arrival's release add and before
# the return; lane 0 of every block of a launch of at most MAXGRID blocks
# (with STRIDE, only its blocks whose index is a multiple of STRIDE: a
# sample of a large workload's full steps) prints
#   CLKTILE block of grid: embedded E layered L arriving A end T
# the cycles (at the SM's clock) from the entry to each marker, -1 for a
# marker the block did not pass (a block with no rows returns at once):
# to E the entry (the list entry, the slot's count, the state words) and
# the embedding; to L the layers and norms up to the second linear's
# output; to A the last norm, the dot with enc(parent) and the logits'
# stores; to T the arrival and, for the slot's last tile, the selection. It patches the PTX text at the labels and instructions it finds
# (one `ret`, the first `bar.sync 0`, the release add), so it follows this tree's
# generator and may need updating when that changes; it fails when a
# marker is not found exactly once. The clock reads and the print add to
# the launch (not to the cycles before the print). --summary reads a run's
# output (its CLKTILE lines) and prints each part's quartiles and maximum
# by the launches' grid sizes.
import collections
import re
import sys

from bundle_ptx import rewrite_policy_ptx

FMT = "CLKTILE %lld of %lld: embedded %lld layered %lld arriving %lld end %lld\n"


def once(lines, pred, what):
    hits = [i for i, l in enumerate(lines) if pred(l)]
    if len(hits) != 1:
        raise SystemExit(f"clock_policy: {what} found {len(hits)} times")
    return hits[0]


def patch(ptx, maxgrid, stride=1):
    lines = ptx.split("\n")
    # Declarations: after the entry's last register declaration.
    entry = once(lines, lambda l: l.startswith(".visible .entry proofc_policy("), "the entry")
    body = next(i for i in range(entry, len(lines)) if lines[i].strip() == "{")
    last_decl = body
    for i in range(body + 1, len(lines)):
        s = lines[i].strip()
        if s.startswith(".reg") or s.startswith(".shared") or s.startswith("//") or not s:
            last_decl = i
        else:
            break
    decls = ["\t.reg .b64 \t%clk<5>;", "\t.reg .b64 \t%clkd<8>;", "\t.reg .b32 \t%clkr<3>;",
             "\t.reg .pred \t%clkp<3>;", "\t.local .align 8 .b8 \tclkbuf[48];",
             "\tmov.u64 \t%clk0, %clock64;", "\tmov.u64 \t%clk1, 0;", "\tmov.u64 \t%clk2, 0;",
             "\tmov.u64 \t%clk3, 0;"]
    lines[last_decl + 1:last_decl + 1] = decls
    # The embedding ends with the block's first barrier (the arrival's come
    # after the layers).
    at = next((i for i, l in enumerate(lines) if l.strip() == "bar.sync \t0;"), None)
    if at is None:
        raise SystemExit("clock_policy: the embedding's barrier not found")
    lines.insert(at + 1, "\tmov.u64 \t%clk1, %clock64;")
    # The block after the layers: the target of the layer loop's exit
    # (`bra.uni` right after the back edge to the loop's head).
    head = None
    for i, l in enumerate(lines):
        m = re.match(r"\s*@%p\d+ bra \t(\$L__BB0_\d+);", l)
        if m and i + 1 < len(lines) and "mma.sync" in "".join(lines[max(0, i - 40):i]):
            nxt = re.match(r"\s*bra.uni \t(\$L__BB0_\d+);", lines[i + 1])
            if nxt:
                head = nxt.group(1)
                break
    if head is None:
        raise SystemExit("clock_policy: the layer loop's exit not found")
    at = once(lines, lambda l: l.strip() == head + ":", "the block after the layers")
    lines.insert(at + 1, "\tmov.u64 \t%clk2, %clock64;")
    at = once(lines, lambda l: "atom.release.gpu.global.add.u32" in l, "the arrival")
    lines.insert(at, "\tmov.u64 \t%clk3, %clock64;")
    at = once(lines, lambda l: l.strip() == "ret;", "the return")
    printing = [
        "\tmov.u64 \t%clk4, %clock64;",
        "\tmov.u32 \t%clkr0, %tid.x;",
        "\tsetp.ne.u32 \t%clkp0, %clkr0, 0;",
        "\t@%clkp0 bra \t$CLK_SKIP;",
        "\tmov.u32 \t%clkr1, %nctaid.x;",
        f"\tsetp.gt.u32 \t%clkp1, %clkr1, {maxgrid};",
        "\t@%clkp1 bra \t$CLK_SKIP;",
        "\tmov.u32 \t%clkr2, %ctaid.x;",
    ]
    if stride > 1:
        printing += [
            f"\trem.u32 \t%clkr0, %clkr2, {stride};",
            "\tsetp.ne.u32 \t%clkp0, %clkr0, 0;",
            "\t@%clkp0 bra \t$CLK_SKIP;",
        ]
    printing += [
        "\tcvt.u64.u32 \t%clkd0, %clkr2;",
        "\tcvt.u64.u32 \t%clkd1, %clkr1;",
        "\tst.local.u64 \t[clkbuf], %clkd0;",
        "\tst.local.u64 \t[clkbuf+8], %clkd1;",
    ]
    # Each marker's cycles since the entry, -1 where the block did not
    # pass it (its register still 0).
    for k in range(1, 5):
        printing += [
            f"\tsetp.eq.u64 \t%clkp2, %clk{k}, 0;",
            f"\tsub.s64 \t%clkd2, %clk{k}, %clk0;",
            "\tselp.b64 \t%clkd2, -1, %clkd2, %clkp2;",
            f"\tst.local.u64 \t[clkbuf+{8 + 8 * k}], %clkd2;",
        ]
    printing += [
        "\tmov.u64 \t%clkd6, clkbuf;",
        "\tcvta.local.u64 \t%clkd6, %clkd6;",
        "\tmov.u64 \t%clkd7, clkfmt;",
        "\tcvta.global.u64 \t%clkd7, %clkd7;",
        "\t{",
        "\t.param .b64 clkparam0;",
        "\tst.param.b64 \t[clkparam0], %clkd7;",
        "\t.param .b64 clkparam1;",
        "\tst.param.b64 \t[clkparam1], %clkd6;",
        "\t.param .b32 clkret;",
        "\tcall.uni (clkret), vprintf, (clkparam0, clkparam1);",
        "\t}",
        "$CLK_SKIP:",
    ]
    lines[at:at] = printing
    data = FMT.encode() + b"\0"
    header = [
        ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, "
        ".param .b64 vprintf_param_1);",
        f".global .align 1 .b8 clkfmt[{len(data)}] = {{{', '.join(str(c) for c in data)}}};",
    ]
    at = once(lines, lambda l: l.startswith(".address_size"), ".address_size")
    lines[at + 1:at + 1] = header
    return "\n".join(lines)


TILE = re.compile(r"CLKTILE (\d+) of (\d+): embedded (-?\d+) layered (-?\d+) "
                  r"arriving (-?\d+) end (-?\d+)")


def quartiles(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return "-"
    return f"{v[n // 4]:>6} {v[n // 2]:>6} {v[(3 * n) // 4]:>6} max {v[-1]:>6}"


def summary(path):
    rows = [tuple(map(int, m.groups())) for m in TILE.finditer(open(path).read())]
    grids = sorted(collections.Counter(r[1] for r in rows).items())
    print(f"{len(rows)} blocks printed; launches by grid: {grids[:30]}")
    for lo, hi in ((1, 4), (5, 40), (41, 400), (401, 2000), (2001, 1 << 31)):
        sel = [r for r in rows if lo <= r[1] <= hi]
        if not sel:
            continue
        # A block with rows passed every marker; one without returned at once.
        busy = [r for r in sel if r[2] >= 0 and r[5] >= 0]
        print(f"grid {lo}-{hi}: {len(sel)} blocks, {len(busy)} embedded "
              "(quartiles, max; cycles)")
        print(f"  no rows, entry to return {quartiles([r[5] for r in sel if r[2] < 0])}")
        if busy:
            print(f"  embed   {quartiles([r[2] for r in busy])}")
            print(f"  layers  {quartiles([r[3] - r[2] for r in busy if r[3] >= 0])}")
            print(f"  dot     {quartiles([r[4] - r[3] for r in busy if r[3] >= 0 and r[4] >= 0])}")
            print(f"  arrive  {quartiles([r[5] - r[4] for r in busy if r[4] >= 0])}")
            print(f"  total   {quartiles([r[5] for r in busy])}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        return summary(sys.argv[2])
    src, dst = sys.argv[1], sys.argv[2]
    maxgrid = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    stride = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rewrite_policy_ptx(src, dst, lambda ptx: patch(ptx, maxgrid, stride), "clock_policy")


if __name__ == "__main__":
    main()
