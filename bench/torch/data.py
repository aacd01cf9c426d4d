"""Datasets, Horn rules and candidate lists for the PyTorch port (spec §1.1, §6).

Mirrors runtime/src/data/{Dataset,Rules,Candidates}.cpp: names are byte-sorted
(Python `str` sorted by `.encode()`), terms are ints with constants >= 0 and
the rule variable numbered k (by first occurrence, head first) as -k, and the
corruption sampler is the exact SplitMix64 partial Fisher-Yates of §6.
Errors raise DataError with a one-line "path:line: what" message.
"""

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

MASK64 = (1 << 64) - 1
MAX_BODY = 8  # implementation limit (spec §1.1: >= 4); same as the C++ kMaxBody

Triple = Tuple[int, int, int]  # (h, r, t)


class DataError(Exception):
    """A malformed input file; the message names the file and line."""


@dataclass
class Atom:
    p: int
    a: int
    b: int


@dataclass
class Rule:
    head: Atom
    body: List[Atom]
    line: int

    @property
    def num_vars(self) -> int:
        terms = [self.head.a, self.head.b] + [t for x in self.body for t in (x.a, x.b)]
        return max([-t for t in terms if t < 0], default=0)


@dataclass
class Dataset:
    dir: str
    entities: List[str]
    relations: List[str]
    entity_ids: Dict[str, int]
    relation_ids: Dict[str, int]
    train: List[Triple]
    valid: List[Triple]
    test: List[Triple]
    rules: List[Rule] = field(default_factory=list)

    @property
    def num_entities(self) -> int:
        return len(self.entities)

    @property
    def num_relations(self) -> int:
        return len(self.relations)

    def split(self, name: str) -> List[Triple]:
        if name not in ("train", "valid", "test"):
            raise DataError(f"unknown split '{name}' (expected train, valid or test)")
        return getattr(self, name)


def _byte_sorted(names) -> List[str]:
    return sorted(set(names), key=lambda s: s.encode("utf-8"))


def _parse_tsv(path: str) -> List[Tuple[str, str, str]]:
    with open(path, "rb") as f:
        data = f.read()
    out = []
    lines = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        has_newline = number < len(lines)
        if line.endswith(b"\r") and has_newline:
            line = line[:-1]
        if not line:
            continue
        if b"\r" in line:
            column = line.index(b"\r") + 1
            raise DataError(f"{path}:{number}: carriage return not followed by a line feed "
                            f"(column {column})")
        fields = line.split(b"\t")
        if len(fields) != 3:
            raise DataError(f"{path}:{number}: expected 3 TAB-separated fields "
                            f"(head, relation, tail), found {len(fields)}")
        names = []
        for what, raw in zip(("head", "relation", "tail"), fields):
            if not raw:
                raise DataError(f"{path}:{number}: empty {what} field")
            try:
                names.append(raw.decode("utf-8", errors="strict"))
            except UnicodeDecodeError:
                raise DataError(f"{path}:{number}: invalid UTF-8 in the {what} field") from None
        out.append((names[0], names[1], names[2]))
    return out


class _RuleLine:
    """Recursive-descent parser of one rules.txt line (grammar of spec §1.1)."""

    def __init__(self, text: str, path: str, line: int, entity_ids, relation_ids):
        self.text, self.path, self.line = text, path, line
        self.entity_ids, self.relation_ids = entity_ids, relation_ids
        self.pos = 0
        self.vars: Dict[str, int] = {}

    def error(self, at: int, what: str):
        raise DataError(f"{self.path}:{self.line}:{at + 1}: {what}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def describe(self, at: int) -> str:
        if at >= len(self.text):
            return "end of line"
        c = self.text[at]
        if ord(c) < 0x20 or ord(c) == 0x7F:
            return f"byte 0x{ord(c):02x}"
        return f"'{c}'"

    def skip_blanks(self):
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c in " \t\r":
                self.pos += 1
            elif c == "%":
                self.pos = len(self.text)
            else:
                break

    def expect(self, c: str, what: str):
        self.skip_blanks()
        if self.peek() != c:
            self.error(self.pos, f"expected {what}, found {self.describe(self.pos)}")
        self.pos += 1

    def name(self) -> Tuple[str, int]:
        at = self.pos
        if self.peek() == "'":
            self.pos += 1
            chars = []
            while True:
                if self.pos >= len(self.text):
                    self.error(at, "unterminated quoted name")
                c = self.text[self.pos]
                self.pos += 1
                if c != "'":
                    chars.append(c)
                    continue
                if self.peek() != "'":
                    break
                chars.append("'")
                self.pos += 1
            return "".join(chars), at
        while self.pos < len(self.text) and _is_ident(self.text[self.pos]):
            self.pos += 1
        return self.text[at:self.pos], at

    def predicate(self) -> int:
        self.skip_blanks()
        c = self.peek()
        if not ("a" <= c <= "z" or c == "'"):
            self.error(self.pos, f"expected a predicate name, found {self.describe(self.pos)}")
        name, at = self.name()
        if name not in self.relation_ids:
            self.error(at, f"unknown relation '{name}' (not in train, valid or test)")
        return self.relation_ids[name]

    def term(self) -> int:
        self.skip_blanks()
        c = self.peek()
        if "a" <= c <= "z" or c == "'":
            name, at = self.name()
            if name not in self.entity_ids:
                self.error(at, f"unknown entity '{name}' (not in train, valid or test)")
            return self.entity_ids[name]
        if "A" <= c <= "Z" or c == "_":
            at = self.pos
            while self.pos < len(self.text) and _is_ident(self.text[self.pos]):
                self.pos += 1
            var = self.text[at:self.pos]
            if var == "_":
                self.error(at, "anonymous variable '_' is not allowed")
            if var not in self.vars:
                self.vars[var] = -(len(self.vars) + 1)
            return self.vars[var]
        self.error(self.pos, f"expected a variable or a constant, found {self.describe(self.pos)}")

    def atom(self) -> Atom:
        p = self.predicate()
        self.expect("(", "'(' after the predicate name")
        a = self.term()
        self.expect(",", "',' between the two arguments")
        b = self.term()
        self.expect(")", "')' after the second argument")
        return Atom(p, a, b)

    def rule(self) -> Optional[Rule]:
        """The rule on this line, or None for a blank/comment line."""
        self.skip_blanks()
        if self.pos >= len(self.text):
            return None
        head = self.atom()
        self.skip_blanks()
        if not self.text.startswith(":-", self.pos):
            self.error(self.pos, f"expected ':-' after the rule head, found {self.describe(self.pos)}")
        self.pos += 2
        body = [self.atom()]
        while True:
            self.skip_blanks()
            if self.peek() == ",":
                self.pos += 1
                body.append(self.atom())
                if len(body) > MAX_BODY:
                    self.error(self.pos, f"rule body has more than {MAX_BODY} atoms")
                continue
            if self.peek() == ".":
                self.pos += 1
                break
            self.error(self.pos, f"expected ',' or '.' after a body atom, found {self.describe(self.pos)}")
        self.skip_blanks()
        if self.pos < len(self.text):
            self.error(self.pos, f"expected end of line after '.' (one rule per line), "
                                 f"found {self.describe(self.pos)}")
        return Rule(head, body, self.line)


def _is_ident(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


def parse_rules(text: str, path: str, entity_ids, relation_ids) -> List[Rule]:
    rules = []
    for number, line in enumerate(text.split("\n"), start=1):
        rule = _RuleLine(line, path, number, entity_ids, relation_ids).rule()
        if rule is not None:
            rules.append(rule)
    return rules


def load_dataset(directory: str) -> Dataset:
    raw = {}
    for split in ("train", "valid", "test"):
        raw[split] = _parse_tsv(os.path.join(directory, f"{split}.tsv"))
    entities = _byte_sorted(n for rows in raw.values() for h, _, t in rows for n in (h, t))
    relations = _byte_sorted(r for rows in raw.values() for _, r, _ in rows)
    eid = {n: i for i, n in enumerate(entities)}
    rid = {n: i for i, n in enumerate(relations)}
    triples = {s: [(eid[h], rid[r], eid[t]) for h, r, t in rows] for s, rows in raw.items()}
    rules_path = os.path.join(directory, "rules.txt")
    with open(rules_path, "rb") as f:
        rules_bytes = f.read()
    try:
        rules_text = rules_bytes.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        line = rules_bytes[:e.start].count(b"\n") + 1
        raise DataError(f"{rules_path}:{line}: invalid UTF-8") from None
    rules = parse_rules(rules_text, rules_path, eid, rid)
    return Dataset(directory, entities, relations, eid, rid,
                   triples["train"], triples["valid"], triples["test"], rules)


# --- §6: candidates ---------------------------------------------------------


class SplitMix64:
    """The standard SplitMix64 generator (64-bit wrapping arithmetic)."""

    def __init__(self, state: int):
        self.state = state & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


def sample_corruptions(items: List[int], k: int, seed: int, query: int, mode: int) -> List[int]:
    """§6 partial Fisher-Yates: the first k of the shuffled list, in that order."""
    stream = (2 * query + mode + 1) & MASK64
    rng = SplitMix64(seed ^ ((stream * 0xD1B54A32D192ED03) & MASK64))
    items = list(items)
    n = len(items)
    for j in range(k):
        pick = j + rng.next() % (n - j)
        items[j], items[pick] = items[pick], items[j]
    return items[:k]


HEAD, TAIL = 0, 1
MODE_NAMES = ("head", "tail")


@dataclass
class CandidateSet:
    queries: List[Triple]
    triples: List[Triple]          # every candidate (h, r, t), query-major, head before tail
    query: List[int]               # query index of each candidate
    mode: List[int]                # HEAD or TAIL
    entity: List[int]              # the entity in the corrupted position
    groups: List[Tuple[int, int, int, int]]  # (query, mode, begin, end); begin is the positive


def build_candidates(ds: Dataset, split: str = "test", corruptions: int = 0,
                     seed: int = 0, max_queries: int = -1) -> CandidateSet:
    queries, seen = [], set()
    for q in ds.split(split):
        if 0 <= max_queries <= len(queries):
            break
        if q not in seen:
            seen.add(q)
            queries.append(q)
    known_heads: Dict[Tuple[int, int], set] = {}
    known_tails: Dict[Tuple[int, int], set] = {}
    for triples in (ds.train, ds.valid, ds.test):
        for h, r, t in triples:
            known_heads.setdefault((r, t), set()).add(h)
            known_tails.setdefault((h, r), set()).add(t)
    cs = CandidateSet(queries, [], [], [], [], [])
    E = ds.num_entities
    for qi, (h, r, t) in enumerate(queries):
        for mode in (HEAD, TAIL):
            self_e, known = (h, known_heads[(r, t)]) if mode == HEAD else (t, known_tails[(h, r)])
            items = [e for e in range(E) if e != self_e and e not in known]
            if corruptions > 0 and len(items) > corruptions:
                items = sample_corruptions(items, corruptions, seed, qi, mode)
            begin = len(cs.triples)
            for e in [self_e] + items:
                cs.triples.append((e, r, t) if mode == HEAD else (h, r, e))
                cs.query.append(qi)
                cs.mode.append(mode)
                cs.entity.append(e)
            cs.groups.append((qi, mode, begin, len(cs.triples)))
    return cs
