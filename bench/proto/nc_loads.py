# Design study (docs/performance.md, "fb15k-237's policy by Nsight Compute
# and clock counters"): does the policy kernel gain from reading its
# read-only rows through the non-coherent path? The generator's
# LLVM::LoadOp(invariant) loads of the embedding tables, the layers'
# weights and the state words come out of the NVPTX backend as
# `ld.global.nc` for some and plain `ld.global` for others. This rewrites
# the step policy module's PTX so that every vector load of global memory
# (v4: tables and weights; with --v2 also the v2 state-word pairs) is
# `.nc`; the kernel's scalar loads (list entries, counts) and the
# selection's volatile logit loads are left as they are.
#   python3 bench/proto/nc_loads.py in.pcb out.pcb [--v2]
import sys

from bundle_ptx import rewrite_policy_ptx


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        raise SystemExit("usage: nc_loads.py in.pcb out.pcb [--v2]")
    widths = ["v4", "v2"] if "--v2" in sys.argv else ["v4"]

    def rewrite(src):
        for w in widths:
            n = src.count(f"ld.global.{w}.b32")
            src = src.replace(f"ld.global.{w}.b32", f"ld.global.nc.{w}.b32")
            print(f"{args[1]}: {n} ld.global.{w}.b32 made .nc")
        return src

    rewrite_policy_ptx(args[0], args[1], rewrite, "nc_loads")


if __name__ == "__main__":
    main()
