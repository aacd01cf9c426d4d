#!/usr/bin/python3
"""Replays every proof of proofc runs in SWI-Prolog (ctest: proofs-prolog-replay).

For countries_s3 and nations with their trained weights (the first test
queries, some corruptions, the host backend), `proofc run --proofs` writes
the proofs as Prolog terms and as JSON lines; test/proofs/check_proofs.pl
checks every step of the Prolog file against the train facts and the rules,
and the JSON file, turned into the same Prolog terms here (docs/proofs.md
defines both), is checked the same way. The proofs must be exactly the
PROVED candidates of the outcomes TSV (--proofs-of positives: the proved
positives), and the report must name the file by its SHA-256.

The checker itself must reject bad proofs: a proof that uses the candidate's
own triple as a fact, a wrong rule line, a wrong resolvent, a wrong
substitution, a last goal list that is not empty -- each must fail, and the
same proof without the defect must pass.

Exit 77 (ctest: skipped) when swipl is not installed.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"replay_in_prolog: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def quote(name):
    out = ["'"]
    for ch in name:
        if ch in "'\\":
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):x}\\")
        else:
            out.append(ch)
    out.append("'")
    return "".join(out)


def term(t):
    return f"v({t})" if isinstance(t, int) else quote(t)


def atom(a):
    return f"{quote(a[0])}({term(a[1])},{term(a[2])})"


def atoms(lst):
    return "[" + ",".join(atom(a) for a in lst) + "]"


def json_to_prolog(p):
    """One JSON proof line as the proof/7 term docs/proofs.md defines."""
    h, r, t = p["triple"]
    steps = []
    for s in p["steps"]:
        c = s["clause"]
        if "fact" in c:
            clause = f"fact({atom(c['fact'])})"
        else:
            rule = c["rule"]
            clause = (f"rule({rule['line']},{quote(rule['text'])},"
                      f"{atom(rule['head'])},{atoms(rule['body'])})")
        subst = ",".join(f"v({k})={term(v)}" for k, v in s["substitution"])
        steps.append(f"step({atoms(s['goals'])},{s['action']},{s['derived']},"
                     f"{clause},[{subst}],{atoms(s['resolvent'])})")
    positive = "true" if p["positive"] else "false"
    return (f"proof({p['candidate']},{p['query']},{p['mode']},{positive},"
            f"{atom([r, h, t])},{p['depth']},"
            f"[{','.join(steps)}]).\n")


def run(cmd, expect_ok=True):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if expect_ok and res.returncode != 0:
        fail(f"{' '.join(cmd)} exited {res.returncode}:\n{res.stdout}{res.stderr}")
    return res


def check(swipl, checker, data, path, expect_ok=True, expect_text=None):
    res = run([swipl, checker, data, path], expect_ok=False)
    if expect_ok and res.returncode != 0:
        fail(f"check_proofs rejected {path}:\n{res.stdout}{res.stderr}")
    if not expect_ok:
        if res.returncode != 1:
            fail(f"check_proofs accepted the bad proof {path} "
                 f"(exit {res.returncode}):\n{res.stdout}{res.stderr}")
        if expect_text and expect_text not in res.stderr:
            fail(f"check_proofs rejected {path} for another reason "
                 f"(wanted '{expect_text}'):\n{res.stderr}")
    return res.stdout


def proved_candidates(tsv):
    """Candidate indices (line order) whose status is PROVED, and which of
    them are positives (the first candidate of their (query, mode))."""
    proved, positives = [], []
    seen = set()
    index = 0
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or line.startswith("query\t"):
                continue
            cols = line.rstrip("\n").split("\t")
            key = (cols[0], cols[1])
            first = key not in seen
            seen.add(key)
            if cols[3] == "proved":
                proved.append(index)
                if first:
                    positives.append(index)
            index += 1
    return proved, positives


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory of proofc")
    ap.add_argument("--shared", required=True, help="shared/ (data, weights)")
    ap.add_argument("--source", required=True, help="the source tree")
    args = ap.parse_args()
    swipl = shutil.which("swipl")
    if not swipl:
        print("replay_in_prolog: swipl not installed (Debian swi-prolog-nox): "
              "skipped")
        sys.exit(77)
    checker = os.path.join(args.source, "test/proofs/check_proofs.pl")
    program = os.path.join(args.source, "examples/v10.mlir")
    proofc = os.path.join(args.bin, "proofc")
    tmp = tempfile.mkdtemp(prefix="proofs-replay-")
    try:
        for name, queries, corruptions in [("countries_s3", 24, 30),
                                           ("nations", 100, 20)]:
            data = os.path.join(args.shared, "data", name)
            weights = os.path.join(args.shared, "weights",
                                   name + ".safetensors")
            base = [proofc, "run", program, "--data", data, "--weights",
                    weights, "--device", "cpu", "--quiet", "--queries",
                    str(queries), "--corruptions", str(corruptions)]
            pl, js = f"{tmp}/{name}.pl", f"{tmp}/{name}.jsonl"
            tsv, report = f"{tmp}/{name}.tsv", f"{tmp}/{name}.json"
            run(base + ["--proofs", pl, "--proofs-format", "prolog",
                        "--outcomes", tsv, "--report", report])
            run(base + ["--proofs", js])
            proved, positives = proved_candidates(tsv)
            if len(proved) < 20:
                fail(f"{name}: only {len(proved)} proved candidates: the "
                     "test would check little")

            # Every proof checks in Prolog, from both formats.
            out = check(swipl, checker, data, pl)
            if f"{len(proved)} proofs checked" not in out:
                fail(f"{name}: {out.strip()}, expected {len(proved)} proofs")
            lines = [json.loads(l) for l in open(js, encoding="utf-8")]
            if [p["candidate"] for p in lines] != proved:
                fail(f"{name}: the JSON proofs are not the proved candidates")
            converted = f"{tmp}/{name}.from-json.pl"
            with open(converted, "w", encoding="utf-8") as f:
                f.writelines(json_to_prolog(p) for p in lines)
            check(swipl, checker, data, converted)
            # Format 2: no log-probability (it agrees across backends only
            # within spec 7's tolerance); the two formats say the same.
            keys = {"candidate", "query", "mode", "positive", "triple",
                    "depth", "steps"}
            if any(set(p) != keys for p in lines):
                fail(f"{name}: a JSON proof's keys are not {sorted(keys)}")
            written = open(pl, encoding="utf-8").read().split("\n", 1)[1]
            if written != "".join(json_to_prolog(p) for p in lines):
                fail(f"{name}: the Prolog proofs are not the JSON proofs")
            with open(report, encoding="utf-8") as f:
                rep = json.load(f)["proofs"]
            sha = hashlib.sha256(open(pl, "rb").read()).hexdigest()
            if rep != {"file": pl, "sha256": sha, "format": "prolog",
                       "version": 2, "of": "all", "count": len(proved)}:
                fail(f"{name}: report proofs {rep}")

            # --proofs-of positives: the proved positives only.
            posf = f"{tmp}/{name}.pos.jsonl"
            run(base + ["--proofs", posf, "--proofs-of", "positives"])
            pos = [json.loads(l) for l in open(posf, encoding="utf-8")]
            if [p["candidate"] for p in pos] != positives or \
                    not all(p["positive"] for p in pos):
                fail(f"{name}: --proofs-of positives gave "
                     f"{[p['candidate'] for p in pos]}, expected {positives}")

        # The checker rejects bad proofs (countries_s3's first proof with a
        # rule step, mutated), and accepts the unmutated control.
        data = os.path.join(args.shared, "data", "countries_s3")
        lines = [json.loads(l)
                 for l in open(f"{tmp}/countries_s3.jsonl", encoding="utf-8")]
        good = next(p for p in lines
                    if any("rule" in s["clause"] for s in p["steps"])
                    and "fact" in p["steps"][-1]["clause"])
        ri = next(i for i, s in enumerate(good["steps"])
                  if "rule" in s["clause"])

        def variant(label, mutate, expect_text):
            p = json.loads(json.dumps(good))
            mutate(p)
            path = f"{tmp}/bad-{label}.pl"
            with open(path, "w", encoding="utf-8") as f:
                f.write(json_to_prolog(p))
            check(swipl, checker, data, path, expect_ok=expect_text is None,
                  expect_text=expect_text)

        variant("control", lambda p: None, None)

        def rule_line(p):
            p["steps"][ri]["clause"]["rule"]["line"] += 1
        variant("rule-line", rule_line, "rule")

        def resolvent(p):
            res = p["steps"][ri]["resolvent"]
            res[0] = [res[0][0], res[0][2], res[0][1]]
        variant("resolvent", resolvent, "resolvent")

        def substitution(p):
            s = p["steps"][ri]["substitution"]
            s[0] = [s[0][0], "france" if s[0][1] != "france" else "spain"]
        variant("substitution", substitution, "does not unify")

        def not_empty(p):  # the proof cut before its last step
            p["steps"].pop()
            p["depth"] -= 1
        variant("last-not-empty", not_empty, "not empty")

        def not_fact(p):
            f = p["steps"][-1]["clause"]["fact"]
            p["steps"][-1]["clause"]["fact"] = [f[0], f[1], f[1]]
        variant("not-a-fact", not_fact, "not a train fact")

        # A one-step proof of a train fact by itself: the candidate's own
        # triple used as a fact.
        fact = next(s["clause"]["fact"] for p in lines for s in p["steps"]
                    if "fact" in s["clause"])
        own = {"candidate": 0, "query": 0, "mode": "tail", "positive": True,
               "triple": [fact[1], fact[0], fact[2]], "depth": 1,
               "steps": [{"goals": [fact], "action": 0, "derived": 1,
                          "clause": {"fact": fact}, "substitution": [],
                          "resolvent": []}]}
        path = f"{tmp}/own-triple.pl"
        with open(path, "w", encoding="utf-8") as f:
            f.write(json_to_prolog(own))
        check(swipl, checker, data, path, expect_ok=False,
              expect_text="own triple")
        print("replay_in_prolog: every proof replays in SWI-Prolog; the "
              "checker rejects the 6 bad proofs")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
