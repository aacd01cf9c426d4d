# Call G's bundle rewrite: the advance-engine lists only the slots that have
# children after their derive (taking the list position then, not before
# the advance), and the next policy always takes its grid from the list
# (kernel_abi.h's list mode: listed x parts blocks), so that the slots that
# wait or finished launch no policy blocks. The policy kernel is unchanged.
#   python3 list_children.py in.pcb out.pcb
import json
import sys


def sub(s, old, new):
    if s.count(old) != 1:
        raise SystemExit(f"list_children: {old[:60]!r} found {s.count(old)} times")
    return s.replace(old, new)


b = json.load(open(sys.argv[1]))
m = [m for m in b["modules"] if m["name"] == "advance"][0]
s = m["source"]
s = sub(s, """    const int listedAt =
        nextPolicy && slotCand[b] >= 0
            ? atomicAdd(policyGrid + proofc_abi::kPolicyListCount, 1)
            : -1;""", """    const int listedAt = -1;""")
s = sub(s, """  if (sActive) {
    atomicAdd(counters, 1);""", """  if (nextPolicy && count[b] > 0)
    policyList[atomicAdd(policyGrid + proofc_abi::kPolicyListCount, 1)] = b;
  if (sActive) {
    atomicAdd(counters, 1);""")
s = sub(s, """    if (proofc_abi::policyListsSlots(listed, B))""", """    if (true)""")
m["source"] = s
json.dump(b, open(sys.argv[2], "w"))
