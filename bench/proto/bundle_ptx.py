# The bundle rewriters' shared step (clock_policy.py, nc_loads.py): read a
# bundle, rewrite the text of its one PTX module named "policy" (the step
# schedule's policy kernel), write the copy. Run from bench/proto's scripts,
# whose folder is on sys.path when they run as files.
import json


def rewrite_policy_ptx(src, dst, rewrite, tool):
    """Writes bundle `src` to `dst` with its policy PTX replaced by
    rewrite(text); fails, naming `tool`, unless there is exactly one."""
    with open(src) as f:
        bundle = json.load(f)
    mods = [m for m in bundle["modules"] if m["name"] == "policy" and m["format"] == "ptx"]
    if len(mods) != 1:
        raise SystemExit(f"{tool}: no PTX module 'policy'")
    mods[0]["source"] = rewrite(mods[0]["source"])
    with open(dst, "w") as f:
        json.dump(bundle, f, indent=1)
