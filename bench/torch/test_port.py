"""Checks of the PyTorch port against a naive, separately written reading of
the spec (runs on the CPU with any torch >= 1.13, no other packages):

    python3 -m unittest bench.torch.test_port -v

* the tensor engine vs a one-state-at-a-time §3 reference (substitution maps,
  every fact scanned) on random knowledge bases that exercise what the real
  rule files do not: constants in rules, repeated head variables, p(V, V)
  goals, the candidate's own triple at any depth, > A atoms, truncation to S;
* the folded policy vs the §4 formulas in float64, and the action rule;
* SplitMix64, the rules parser's errors, the TSV loader's errors.
"""

import math
import os
import random
import tempfile
import unittest

import numpy as np
import torch

from . import data as kgdata
from .engine import build_engine, derive, PAD_PRED
from .policy import load_policy, select, encode


# --- a naive §3 reference ----------------------------------------------------

def _walk(theta, t):
    while not isinstance(t, int) and t in theta:
        t = theta[t]
    return t


def _unify(theta, x, y):
    x, y = _walk(theta, x), _walk(theta, y)
    if x == y:
        return True
    if not isinstance(x, int):
        theta[x] = y
        return True
    if not isinstance(y, int):
        theta[y] = x
        return True
    return False


def _canon(atoms):
    names, out = {}, []
    for p, a, b in atoms:
        terms = []
        for t in (a, b):
            if not isinstance(t, int):
                names.setdefault(t, -(len(names) + 1))
                t = names[t]
            terms.append(t)
        out.append((p, terms[0], terms[1]))
    return tuple(out)


def reference_derive(G, c, facts, rules, A, S, R):
    """G: tuple of (p, a, b) with variables as negative ints; c = (h, r, t)."""
    gv = lambda t: ("g", t) if t < 0 else t
    (p, s, o), rest = G[0], [(q, gv(a), gv(b)) for q, a, b in G[1:]]
    s, o = gv(s), gv(o)
    yielded = []
    for fp, fs, fo in sorted(f for f in facts if f[0] == p):
        if (fs, fp, fo) == c:
            continue
        theta = {}
        if _unify(theta, s, fs) and _unify(theta, o, fo):
            yielded.append([(q, _walk(theta, a), _walk(theta, b)) for q, a, b in rest])
    for rule in rules:
        if rule.head.p != p:
            continue
        rv = lambda t: ("r", t) if t < 0 else t
        theta = {}
        if _unify(theta, rv(rule.head.a), s) and _unify(theta, rv(rule.head.b), o):
            body = [(x.p, rv(x.a), rv(x.b)) for x in rule.body]
            yielded.append([(q, _walk(theta, a), _walk(theta, b)) for q, a, b in body + rest])
    out = []
    for atoms in yielded:
        if not atoms:
            state = ((R, 0, 0),)
        elif len(atoms) > A:
            continue
        else:
            state = _canon(atoms)
        if state not in out:
            out.append(state)
    if ((R, 0, 0),) in out:
        return [((R, 0, 0),)]
    return out[:S] or [((R + 1, 0, 0),)]


# --- random knowledge bases ----------------------------------------------------

def random_dataset(rng, E, R, n_facts, n_rules, max_body):
    ents = [f"e{i}" for i in range(E)]
    rels = [f"r{i}" for i in range(R)]
    facts = sorted({(rng.randrange(E), rng.randrange(R), rng.randrange(E)) for _ in range(n_facts)})
    rules = []
    for line in range(n_rules):
        nv = rng.randint(1, 4)

        def term():
            return rng.randrange(E) if rng.random() < 0.15 else -rng.randint(1, nv)

        head = kgdata.Atom(rng.randrange(R), term(), term())
        body = [kgdata.Atom(rng.randrange(R), term(), term()) for _ in range(rng.randint(1, max_body))]
        # renumber variables by first occurrence, head first (the parser's numbering)
        names = {}
        ren = lambda t: t if t >= 0 else names.setdefault(t, -(len(names) + 1))
        head = kgdata.Atom(head.p, ren(head.a), ren(head.b))
        body = [kgdata.Atom(x.p, ren(x.a), ren(x.b)) for x in body]
        rules.append(kgdata.Rule(head, body, line + 1))
    ds = kgdata.Dataset("random", ents, rels, {n: i for i, n in enumerate(ents)},
                        {n: i for i, n in enumerate(rels)}, facts, [], [], rules)
    return ds


def random_state(rng, E, R, A):
    n = rng.randint(1, A)
    nv = rng.randint(1, 2 * A)
    atoms = []
    for _ in range(n):
        t = lambda: rng.randrange(E) if rng.random() < 0.5 else ("v", rng.randrange(nv))
        atoms.append((rng.randrange(R), t(), t()))
    return _canon(atoms)


def to_tensor_state(state, A):
    rows = list(state) + [(PAD_PRED, 0, 0)] * (A - len(state))
    return rows


class EngineTest(unittest.TestCase):
    def check(self, seed, E, R, A, S, n_facts, n_rules, max_body, B=64):
        rng = random.Random(seed)
        ds = random_dataset(rng, E, R, n_facts, n_rules, max_body)
        shape, tensors = build_engine(ds, A, S, False, torch.device("cpu"))
        facts = {(r, h, t) for h, r, t in ds.train}
        states, cands = [], []
        for _ in range(B):
            state = random_state(rng, E, R, A)
            if rng.random() < 0.5 and ds.train:  # often the candidate is a fact
                c = rng.choice(ds.train)
            else:
                c = (rng.randrange(E), rng.randrange(R), rng.randrange(E))
            if rng.random() < 0.3:  # the candidate's own start state
                state = ((c[1], c[0], c[2]),)
            states.append(state)
            cands.append(c)
        G = torch.tensor([to_tensor_state(s, A) for s in states], dtype=torch.int64)
        C = torch.tensor(cands, dtype=torch.int64)
        D, count = derive(tensors, shape, G, C)
        for b in range(B):
            want = reference_derive(states[b], cands[b], facts, ds.rules, A, S, R)
            got = [tuple(tuple(int(x) for x in atom) for atom in D[b, i] if int(atom[0]) != PAD_PRED)
                   for i in range(int(count[b]))]
            self.assertEqual(got, want, f"seed {seed}, slot {b}: G={states[b]} c={cands[b]}")
            pad = D[b, int(count[b]):]
            self.assertTrue(bool((pad[..., 0] == PAD_PRED).all()), "states after count are padding")
        return D, count

    def test_random_small(self):
        for seed in range(12):
            self.check(seed, E=4, R=2, A=4, S=5, n_facts=12, n_rules=8, max_body=3)

    def test_random_wide(self):
        for seed in range(4):
            self.check(100 + seed, E=7, R=3, A=6, S=40, n_facts=40, n_rules=20, max_body=4)

    def test_truncation_and_false(self):
        # S = 1 forces truncation; no facts at all gives FALSE wherever no rule applies.
        self.check(7, E=3, R=2, A=3, S=1, n_facts=8, n_rules=6, max_body=2)
        self.check(8, E=3, R=2, A=3, S=3, n_facts=0, n_rules=4, max_body=2)


# --- policy -------------------------------------------------------------------

def write_safetensors(path, tensors):
    import json
    import struct
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        raw = np.ascontiguousarray(arr, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def reference_encode(w, state, E, R, d):
    def term(t, tf):
        if tf:
            return np.zeros(d)
        return w["const_emb"][t] if t >= 0 else w["var_emb"][-t - 1]
    h = np.zeros(d)
    for p, a, b in state:
        x = np.concatenate([w["pred_emb"][p], term(a, p >= R), term(b, p >= R)])
        h += np.maximum(w["atom.weight"] @ x + w["atom.bias"], 0)
    l = 0
    while f"mlp.{l}.weight" in w:
        y = w[f"mlp.{l}.weight"] @ h + w[f"mlp.{l}.bias"]
        y = (y - y.mean()) / np.sqrt(y.var() + 1e-5) * w[f"mlp.{l}.ln.weight"] + w[f"mlp.{l}.ln.bias"]
        h = np.maximum(y, 0)
        l += 1
    return h


class PolicyTest(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(0)
        self.E, self.R, self.A, self.d = 9, 4, 4, 16
        E, R, A, d = self.E, self.R, self.A, self.d
        self.w = {"pred_emb": rng.normal(size=(R + 2, d)) * 0.5, "const_emb": rng.normal(size=(E, d)) * 0.5,
                  "var_emb": rng.normal(size=(2 * A, d)) * 0.5, "atom.weight": rng.normal(size=(d, 3 * d)) * 0.2,
                  "atom.bias": rng.normal(size=d) * 0.1}
        for l in range(2):
            self.w.update({f"mlp.{l}.weight": rng.normal(size=(d, d)) * 0.3, f"mlp.{l}.bias": rng.normal(size=d) * 0.1,
                           f"mlp.{l}.ln.weight": 1 + rng.normal(size=d) * 0.1,
                           f"mlp.{l}.ln.bias": rng.normal(size=d) * 0.1})
        self.w = {k: v.astype(np.float32).astype(np.float64) for k, v in self.w.items()}
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "w.safetensors")
        write_safetensors(self.path, self.w)
        self.pol = load_policy(self.path, E, R, A, torch.device("cpu"))

    def tearDown(self):
        self.dir.cleanup()

    def test_encode_matches_formula(self):
        rng = random.Random(1)
        states = [random_state(rng, self.E, self.R, self.A) for _ in range(50)]
        states += [((self.R, 0, 0),), ((self.R + 1, 0, 0),)]  # TRUE, FALSE
        G = torch.tensor([to_tensor_state(s, self.A) for s in states], dtype=torch.int64)
        got = encode(self.pol, G, self.E, self.R, self.A).double().numpy()
        for i, s in enumerate(states):
            want = reference_encode(self.w, s, self.E, self.R, self.d)
            np.testing.assert_allclose(got[i], want, rtol=1e-4, atol=1e-4)

    def test_action_rule_and_logp(self):
        rng = random.Random(2)
        B, S = 30, 7
        G = torch.tensor([to_tensor_state(random_state(rng, self.E, self.R, self.A), self.A)
                          for _ in range(B)], dtype=torch.int64)
        D = torch.tensor([[to_tensor_state(random_state(rng, self.E, self.R, self.A), self.A)
                           for _ in range(S)] for _ in range(B)], dtype=torch.int64)
        D[:, 3] = D[:, 1]  # an exact tie: the smaller index must win
        count = torch.tensor([rng.randint(1, S) for _ in range(B)], dtype=torch.int64)
        action, logp = select(self.pol, G, D, count, self.E, self.R, self.A)
        for b in range(B):
            k = int(count[b])
            eg = reference_encode(self.w, [tuple(map(int, a)) for a in G[b] if int(a[0]) >= 0],
                                  self.E, self.R, self.d)
            logits = [float(eg @ reference_encode(self.w, [tuple(map(int, a)) for a in D[b, i]
                                                            if int(a[0]) >= 0], self.E, self.R, self.d))
                      / math.sqrt(self.d) for i in range(k)]
            m = max(logits)
            want = min(i for i in range(k) if logits[i] >= m - 1e-5 * max(1.0, abs(m)))
            lse = m + math.log(sum(math.exp(x - m) for x in logits))
            self.assertEqual(int(action[b]), want)
            self.assertAlmostEqual(float(logp[b]), 0.0 if k == 1 else logits[want] - lse, places=4)
            if k > 3:
                self.assertNotEqual(int(action[b]), 3, "a tie with index 1 goes to index 1")

    def test_weights_errors(self):
        bad = dict(self.w)
        bad["mlp.0.weight"] = np.zeros((self.d, self.d + 1))
        write_safetensors(self.path, bad)
        with self.assertRaisesRegex(Exception, r"w.safetensors: tensor 'mlp.0.weight' has shape"):
            load_policy(self.path, self.E, self.R, self.A, torch.device("cpu"))
        del bad["mlp.0.weight"]
        bad["extra"] = np.zeros(3)
        write_safetensors(self.path, bad)
        with self.assertRaisesRegex(Exception, r"w.safetensors: "):
            load_policy(self.path, self.E, self.R, self.A, torch.device("cpu"))


# --- data -----------------------------------------------------------------------

class DataTest(unittest.TestCase):
    def test_splitmix64(self):
        rng = kgdata.SplitMix64(0)
        self.assertEqual(rng.next(), 0xE220A8397B1DCDAF)
        self.assertEqual(rng.next(), 0x6E789E6AA1B965F4)

    def write(self, files):
        d = tempfile.mkdtemp()
        for name, text in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode())
        return d

    def base(self, **over):
        files = {"train.tsv": "b\tr\ta\r\n\na\ts\tc\n", "valid.tsv": "", "test.tsv": "c\tr\ta\n",
                 "rules.txt": "% comment\nr(X,Y) :- s(Y, Z), 'r'(Z,X).  % conf\n"}
        files.update(over)
        return self.write(files)

    def test_load(self):
        ds = kgdata.load_dataset(self.base())
        self.assertEqual(ds.entities, ["a", "b", "c"])
        self.assertEqual(ds.train, [(1, 0, 0), (0, 1, 2)])
        self.assertEqual(len(ds.rules), 1)
        r = ds.rules[0]
        self.assertEqual((r.head.a, r.head.b), (-1, -2))
        self.assertEqual([(x.p, x.a, x.b) for x in r.body], [(1, -2, -3), (0, -3, -1)])

    def test_byte_order(self):
        ds = kgdata.load_dataset(self.base(**{"train.tsv": "\u00e9\tr\tZ\nz\tr\ta\n", "rules.txt": ""}))
        self.assertEqual(ds.entities, ["Z", "a", "c", "z", "\u00e9"])

    def test_errors(self):
        cases = [
            ({"train.tsv": "a\tr\n"}, r"train.tsv:1: expected 3 TAB-separated fields"),
            ({"train.tsv": "a\tr\tb\n\na\t\tb\n"}, r"train.tsv:3: empty relation field"),
            ({"test.tsv": "a\tr\x0db\n"}, r"test.tsv:1: carriage return"),
            ({"valid.tsv": b"a\tr\t\xff\n"}, r"valid.tsv:1: invalid UTF-8 in the tail field"),
            ({"rules.txt": "r(X,Y) :- q(X,Y).\n"}, r"rules.txt:1:11: unknown relation 'q'"),
            ({"rules.txt": "\nr(X,Y) :- s(X,zz).\n"}, r"rules.txt:2:15: unknown entity 'zz'"),
            ({"rules.txt": "r(X,_) :- s(X,a).\n"}, r"rules.txt:1:5: anonymous variable"),
            ({"rules.txt": "r(X,Y) :- s(X,Y)\n"}, r"rules.txt:1:17: expected ',' or '.'"),
            ({"rules.txt": "r(X,Y) :- " + ", ".join(["s(X,Y)"] * 9) + ".\n"}, r"rules.txt:1:.*more than 8"),
        ]
        for files, pattern in cases:
            with self.assertRaisesRegex(kgdata.DataError, pattern):
                kgdata.load_dataset(self.base(**files))

    def test_candidates_real(self):
        shared = os.environ.get("PROOFC_SHARED_DIR",
                                os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
        directory = os.path.join(shared, "data", "kinship")
        if not os.path.isdir(directory):
            self.skipTest(f"{directory} not found")
        ds = kgdata.load_dataset(directory)
        cs = kgdata.build_candidates(ds, "test", 100, 0, 100)
        self.assertEqual(len(cs.triples), 18745)  # the V10 workload of the README
        known = set(ds.train) | set(ds.valid) | set(ds.test)
        for _, mode, begin, end in cs.groups:
            self.assertIn(cs.triples[begin], ds.test)
            self.assertTrue(all(t not in known for t in cs.triples[begin + 1:end]))


if __name__ == "__main__":
    unittest.main()
