"""A dataset's vocabulary (spec §1.1) and its fingerprint, read as the C++ loader reads it.

Entity ids are the names of train.tsv ∪ valid.tsv ∪ test.tsv sorted by their
UTF-8 bytes, numbered 0..E-1; relation ids likewise. Row i of `const_emb`
(`pred_emb`) belongs to entity (relation) i, so weights are tied to these
lists. A dataset has no entities.txt or relations.txt: the lists come from the
three splits, parsed line by line as runtime/src/data/Dataset.cpp does (a
leading UTF-8 byte-order mark dropped, CR LF read as LF, empty lines skipped,
exactly three non-empty TAB-separated UTF-8 fields, any other line an error
naming file and line). rules.txt adds no names (spec §1.1).

The fingerprint is the weights contract's "proofc.vocabulary" (docs/weights.md,
runtime Provenance.h vocabularyFingerprint): "sha256:" + the hex SHA-256 of the
UTF-8 bytes "entities\\n", each entity name + "\\n" in id order, "relations\\n",
each relation name + "\\n" in id order.
"""

import hashlib
import os
from typing import List, NamedTuple, Tuple

from .errors import Error

SPLITS = ("train.tsv", "valid.tsv", "test.tsv")
_FIELDS = ("head", "relation", "tail")
_BOM = b"\xef\xbb\xbf"


class Vocabulary(NamedTuple):
    entities: List[str]   # id order
    relations: List[str]  # id order; TRUE = len(relations), FALSE = + 1


def parse_tsv(data: bytes, path: str) -> List[Tuple[str, str, str]]:
    """The triples of one split file's bytes, by name, in file order."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    lines = data.split(b"\n")
    out = []
    for number, line in enumerate(lines, start=1):
        if line.endswith(b"\r") and number < len(lines):
            line = line[:-1]
        if not line:
            continue
        cr = line.find(b"\r")
        if cr >= 0:
            raise Error(f"{path}:{number}: carriage return not followed by a line feed "
                        f"(column {cr + 1})")
        fields = line.split(b"\t")
        if len(fields) != 3:
            raise Error(f"{path}:{number}: expected 3 TAB-separated fields "
                        f"(head, relation, tail), found {len(fields)}")
        names = []
        for what, raw in zip(_FIELDS, fields):
            if not raw:
                raise Error(f"{path}:{number}: empty {what} field")
            try:
                names.append(raw.decode("utf-8", errors="strict"))
            except UnicodeDecodeError:
                raise Error(f"{path}:{number}: invalid UTF-8 in the {what} field") from None
        out.append((names[0], names[1], names[2]))
    return out


def read_split(data_dir: str, split: str) -> List[Tuple[str, str, str]]:
    """The triples of `<data_dir>/<split>.tsv` by name (split: train, valid or test)."""
    if split + ".tsv" not in SPLITS:
        raise Error(f"unknown split '{split}' (expected train, valid or test)")
    path = os.path.join(data_dir, split + ".tsv")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Error(f"{path}: cannot read: {e.strerror or e}") from None
    return parse_tsv(data, path)


def _byte_sorted(names) -> List[str]:
    return sorted(names, key=lambda s: s.encode("utf-8"))


def read_vocabulary(data_dir: str) -> Vocabulary:
    """The entity and relation names of a dataset directory, in id order."""
    entities, relations = set(), set()
    for split in SPLITS:
        for h, r, t in read_split(data_dir, split[:-4]):
            entities.add(h)
            entities.add(t)
            relations.add(r)
    return Vocabulary(_byte_sorted(entities), _byte_sorted(relations))


def fingerprint(vocabulary: Vocabulary) -> str:
    """"sha256:<64 lowercase hex>" of the vocabulary (the definition above)."""
    text = "entities\n" + "".join(n + "\n" for n in vocabulary.entities)
    text += "relations\n" + "".join(n + "\n" for n in vocabulary.relations)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def vocabulary_fingerprint(data_dir: str) -> str:
    """The "proofc.vocabulary" of a dataset directory."""
    return fingerprint(read_vocabulary(data_dir))
