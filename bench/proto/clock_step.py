# Design study (docs/performance.md, "A step by clock counters"):
#   python3 bench/proto/clock_step.py in.pcb out.pcb
# in.pcb compiled with the step schedule (a module "advance" defining
# proofc_advance_engine: the default above B = 256); out.pcb's advance-engine reads
# %clock64 in thread 0 of each block (entry, after the advance, after the
# derive's plan, after the derive) and counts each slot's memo hits and
# derive chunks; the last block of every launch prints three lines:
#   STEP  n, slots holding a candidate before the advance, slots deriving,
#         waiting, the policy tiles the next step needs (a slot of k > 0
#         children kernel_abi.h's policyParts(k, childrenPerPart): V10's
#         15 children a 16-row tile), the entries the advance-engine
#         listed for the next policy (its grid when the bundle resizes it,
#         row 38: equal to the tiles; -1 without a node), the children
#         (the STEP lines of bench/results/2026-11-30d-h200-tail/callA ran
#         87d5000's kernels and printed a grid by its rule instead);
#   CYC   over the deriving slots: mean and max of the advance's, the
#         init-and-plan's and the items' cycles, memo hits and chunks;
#   CRIT  the slot whose advance and derive took longest: its parts.
# It patches the embedded step.cu text, so it follows this tree's
# templates and may need updating when they change (row 39: a block's slot
# comes from the advance-engine's own list from B = 8192, so the last block
# clears each slot's flags after reading them: a slot the next launch does
# not list reads as empty). Timing distortion: the last block's loop over B
# slots adds to each launch (not to the cycles).
import json
import sys

PER = 8  # words a slot: t0, t1 (advance), t2 (plan), t3 (derive), k, hits, chunks, flags


def sub(s, old, new):
    if s.count(old) != 1:
        raise SystemExit(f"clock_step: {old[:50]!r} found {s.count(old)} times")
    return s.replace(old, new)


def patch(src):
    src = sub(src, 'namespace proofc_engine_impl {\n',
              '#if defined(__CUDACC_RTC__)\nextern "C" __device__ int vprintf(const char *, void *);\n#else\n#include <cstdio>\n#define vprintf(f, v) vprintf(f, (const char *)(v))\n#endif\n'
              f'__device__ long long proofc_prof[16384 * {PER}];\n'
              '__device__ int proofc_prof_step;\n'
              'namespace proofc_engine_impl {\n')
    # memo hits (advanceSlot's loop, either walk; b is the slot)
    src = sub(src, '    walk.take(next);\n',
              f'    walk.take(next);\n'
              f'    if (walk.leader()) proofc_prof[b * {PER} + 5] += 1;\n')
    planned = '    sDone = pl.numFacts + pl.numRules == 0;\n  }\n  __syncthreads();\n'
    src = sub(src, planned, planned + f'  if (tid == 0) proofc_prof[b * {PER} + 2] = clock64();\n')
    src = sub(src, '    const int base = sNext;',
              f'    const int base = sNext;\n    if (tid == 0) proofc_prof[b * {PER} + 6] += 1;')
    took = '  const int b = listed < 0 ? i : i < listed ? engineList[read * B + i] : -1;\n'
    src = sub(src, took, took +
              f'  if (threadIdx.x == 0 && b >= 0) {{ long long *q = proofc_prof + b * {PER};\n'
              '    q[0] = clock64(); q[1] = q[2] = q[3] = 0; q[4] = 0; q[5] = 0; q[6] = 0;\n'
              '    q[7] = slotCand[b] >= 0 ? 1 : 0; }\n')
    src = sub(src, '  __syncthreads();\n  // A slot that waits',
              f'  if (threadIdx.x == 0 && b >= 0) proofc_prof[b * {PER} + 1] = clock64();\n'
              '  __syncthreads();\n  // A slot that waits')
    src = sub(src, '  if (threadIdx.x != 0) return;\n  // The next policy has work',
              '  if (threadIdx.x != 0) return;\n'
              f'  if (b >= 0) {{ long long *q = proofc_prof + b * {PER};\n'
              '    q[3] = clock64(); q[4] = count[b];\n'
              '    q[7] |= (sWaiting ? 2 : 0) | (sActive ? 4 : 0); }\n'
              '  // The next policy has work')
    src = sub(src, '  __threadfence();\n  // Every block has arrived',
              '  __threadfence();\n'
              '  {\n'
              '    long long held = 0, deriving = 0, waiting = 0, tiles = 0, kids = 0, maxK = 0;\n'
              '    long long sa = 0, sp = 0, sd = 0, ma = 0, mp = 0, md = 0, sh = 0, mh = 0, sc = 0, mc = 0;\n'
              '    long long best = -1; int bb = -1;\n'
              '    for (int s = 0; s < B; ++s) {\n'
              f'      volatile long long *q = proofc_prof + s * {PER};\n'
              '      const long long f = q[7], k = q[4];\n'
              '      q[7] = 0; // a slot the next launch does not list reads as empty\n'
              '      if (f & 1) ++held;\n'
              '      if (f & 2) { ++waiting; continue; }\n'
              '      if (!(f & 1) || q[2] == 0) continue;\n'
              '      ++deriving; kids += k; if (k > maxK) maxK = k;\n'
              '      if (k > 0) tiles += proofc_abi::policyParts(static_cast<int>(k), childrenPerPart);\n'
              '      const long long a = q[1] - q[0], p = q[2] - q[1], d = q[3] - q[2];\n'
              '      sa += a; sp += p; sd += d; sh += q[5]; sc += q[6];\n'
              '      if (a > ma) ma = a; if (p > mp) mp = p; if (d > md) md = d;\n'
              '      if (q[5] > mh) mh = q[5]; if (q[6] > mc) mc = q[6];\n'
              '      if (q[3] - q[0] > best) { best = q[3] - q[0]; bb = s; }\n'
              '    }\n'
              '    const long long listed = nextPolicy ? static_cast<long long>(((volatile int *)policyGrid)[proofc_abi::kPolicyListCount]) : -1;\n'
              '    const long long n = proofc_prof_step++;\n'
              '    const long long dd = deriving > 0 ? deriving : 1;\n'
                        '    { long long v[8] = {n, held, deriving, waiting, tiles, listed, kids, maxK};\n'
              '      vprintf("STEP %lld held %lld deriving %lld waiting %lld tiles %lld listed %lld children %lld maxk %lld\\n", v); }\n'
              '    { long long v[11] = {n, sa / dd, ma, sp / dd, mp, sd / dd, md, 100 * sh / dd, mh, 100 * sc / dd, mc};\n'
              '      vprintf("CYC %lld adv %lld/%lld plan %lld/%lld items %lld/%lld hits100 %lld/%lld chunks100 %lld/%lld\\n", v); }\n'
              '    if (bb >= 0) {\n'
              f'      volatile long long *q = proofc_prof + bb * {PER};\n'
              '      long long v[9] = {n, bb, best, q[1] - q[0], q[2] - q[1], q[3] - q[2], q[5], q[6], q[4]};\n'
              '      vprintf("CRIT %lld slot %lld total %lld adv %lld plan %lld items %lld hits %lld chunks %lld k %lld\\n", v);\n'
              '    }\n'
              '  }\n'
              '  // Every block has arrived')
    return src


def main():
    b = json.load(open(sys.argv[1]))
    mods = [m for m in b["modules"] if m["name"] == "advance"]
    if not mods:
        raise SystemExit("clock_step: no 'advance' module (compile with the step schedule: --schedule step, or B > 256)")
    mods[0]["source"] = patch(mods[0]["source"])
    json.dump(b, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
