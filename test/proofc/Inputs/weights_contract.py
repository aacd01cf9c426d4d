# The weights contract (docs/weights.md) computed without proofc, for the lit
# tests to cross-check the C++ side and to make the files it is checked on:
#   vocabulary DIR              the dataset's vocabulary fingerprint
#   metadata FILE               a safetensors file's "__metadata__", sorted JSON
#   tensors SPEC.json FILE      SPEC's tensors are exactly FILE's (names,
#                               shapes, dtypes), in any order
#   set-metadata IN OUT JSON    IN with "__metadata__" replaced by JSON (an
#                               object; "null" removes it)
#   rename-entity SRC DST A B   dataset SRC copied to DST with entity A named B
import hashlib
import json
import re
import struct
import sys


def vocabulary(directory):
    # Spec §1.1: entity and relation names of train ∪ valid ∪ test, sorted by
    # bytes; a CR LF line end reads as LF, empty lines are skipped.
    entities, relations = set(), set()
    for split in ("train", "valid", "test"):
        with open(f"{directory}/{split}.tsv", "rb") as f:
            for line in f.read().split(b"\n"):
                line = line[:-1] if line.endswith(b"\r") else line
                if line:
                    head, relation, tail = line.split(b"\t")
                    entities |= {head, tail}
                    relations.add(relation)
    text = b"entities\n" + b"".join(e + b"\n" for e in sorted(entities))
    text += b"relations\n" + b"".join(r + b"\n" for r in sorted(relations))
    return "sha256:" + hashlib.sha256(text).hexdigest()


def read(path):
    with open(path, "rb") as f:
        bytes_ = f.read()
    (size,) = struct.unpack("<Q", bytes_[:8])
    return json.loads(bytes_[8:8 + size]), bytes_[8 + size:]


def main(argv):
    command = argv[0]
    if command == "vocabulary":
        print(vocabulary(argv[1]))
    elif command == "metadata":
        print(json.dumps(read(argv[1])[0].get("__metadata__", {}),
                         sort_keys=True))
    elif command == "tensors":
        with open(argv[1]) as f:
            spec = json.load(f)
        header = read(argv[2])[0]
        header.pop("__metadata__", None)
        want = {t["name"]: (t["shape"], t["dtype"]) for t in spec["tensors"]}
        have = {n: (e["shape"], e["dtype"]) for n, e in header.items()}
        assert want == have, (want, have)
        print(f"tensors: all {len(want)} match")
    elif command == "set-metadata":
        header, data = read(argv[1])
        header.pop("__metadata__", None)
        metadata = json.loads(argv[3])
        if metadata is not None:
            header["__metadata__"] = metadata
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        with open(argv[2], "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + data)
    elif command == "rename-entity":
        src, dst, old, new = argv[1:5]
        for name in ("train.tsv", "valid.tsv", "test.tsv", "rules.txt"):
            with open(f"{src}/{name}") as f:
                text = f.read()
            if name != "rules.txt":
                text = re.sub(rf"(?m)(^|\t){re.escape(old)}(?=\t|$)",
                              lambda m: m.group(1) + new, text)
            with open(f"{dst}/{name}", "w") as f:
                f.write(text)
    else:
        sys.exit(f"unknown command {command}")


main(sys.argv[1:])
