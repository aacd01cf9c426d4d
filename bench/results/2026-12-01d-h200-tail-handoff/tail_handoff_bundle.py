#!/usr/bin/env python3
"""tail_handoff_bundle.py - a prototype bundle of the tail hand-off.

Measurement before building (docs/performance.md, "The tail hand-off"):
the step schedule's bundle at some B (compiled from a tree whose step.cu
knows PROOFC_TAIL_HANDOFF) gets the persistent kernel of the same program
and B (`proofc compile --schedule persistent`) as a second policy module,
launched once after the loop on the slots still active. The persistent
kernel's PTX is patched so that block i runs the i-th slot of the advance-
engine's list (engine_grid, engine_list: two parameters inserted before
slot.cu's words) and its guard is engine_grid's count; the advance module
is compiled with -DPROOFC_TAIL_HANDOFF=T.

  tail_handoff_bundle.py STEP.pcb PERSISTENT.pcb T OUT.pcb
"""
import json
import re
import sys


def patch_ptx(ptx: str, B: int) -> str:
    params = re.findall(r"\.param [^\n]*proofc_policy_param_(\d+)", ptx)
    # slot.cu's words start at the pool: the 24th parameter in V10's kernel.
    anchor = "proofc_policy_param_23,\n"
    assert ptx.count(anchor) == 1, "no parameter 23"
    ptx = ptx.replace(
        anchor, anchor +
        "\t.param .u64 .ptr .global .align 1 proofc_tail_grid,\n"
        "\t.param .u64 .ptr .global .align 1 proofc_tail_list,\n")
    m = re.findall(r"\tmov\.u32 \t(%r\d+), %ctaid\.x;\n", ptx)
    assert len(m) == 1, f"{len(m)} reads of %ctaid.x"
    reg = m[0]
    exits = re.findall(r"@%p\d+ bra \t(\$L__BB0_\d+);", ptx)
    exit_label = exits[0]  # the guard's branch: the kernel's return
    assert re.search(re.escape(exit_label) + r":\n\tret;", ptx), exit_label
    mapping = (
        "\t{\n"
        "\t.reg .b64 %tg, %tl, %ta;\n"
        "\t.reg .b32 %tn, %tr, %ti;\n"
        "\t.reg .pred %tp;\n"
        "\tld.param.b64 %tg, [proofc_tail_grid];\n"
        "\tld.global.b32 %tn, [%tg];\n"
        "\tld.global.b32 %tr, [%tg+4];\n"
        "\tmov.u32 %ti, %ctaid.x;\n"
        "\tsetp.ge.s32 %tp, %ti, %tn;\n"
        f"\t@%tp bra {exit_label};\n"
        f"\tmad.lo.s32 %ti, %tr, {B}, %ti;\n"
        "\tld.param.b64 %tl, [proofc_tail_list];\n"
        "\tmul.wide.s32 %ta, %ti, 4;\n"
        "\tadd.s64 %ta, %tl, %ta;\n"
        f"\tld.global.b32 {reg}, [%ta];\n"
        "\t}\n")
    return ptx.replace(f"\tmov.u32 \t{reg}, %ctaid.x;\n", mapping)


def main(step_path, pers_path, T, out_path):
    step = json.load(open(step_path))
    pers = json.load(open(pers_path))
    B = step["program"]["shape"]["B"]
    assert pers["program"]["shape"]["B"] == B
    mods = {m["name"]: m for m in pers["modules"]}
    policy = dict(mods["policy"])
    policy["name"] = "tail"
    policy["link"] = ["tailslot"]
    policy["source"] = patch_ptx(policy["source"], B)
    slot = dict(mods["slot"])
    slot["name"] = "tailslot"
    for m in step["modules"]:
        if m["name"] == "advance":
            m["options"].append(f"-DPROOFC_TAIL_HANDOFF={T}")
    step["modules"] += [policy, slot]
    launch = [l for l in pers["plan"]["launches"] if l["role"] == "persistent"][0]
    launch = dict(launch)
    launch["name"] = "tail"
    launch["module"] = "tail"
    args = list(launch["args"])
    assert args[0] == "buf:loop_flag" and args[24] == "buf:pool", args[:26]
    args[0] = "buf:engine_grid"
    args[24:24] = ["buf:engine_grid", "buf:engine_list"]
    launch["args"] = args
    step["plan"]["launches"].append(launch)
    step["plan"]["schedule"]["tail"] = [{"launch": "tail"}]
    json.dump(step, open(out_path, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
