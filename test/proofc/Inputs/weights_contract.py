# The weights contract (docs/weights.md) computed without proofc, for the lit
# tests to cross-check the C++ side:
#   vocabulary DIR          the dataset's "sha256:<hex>" vocabulary fingerprint
#   metadata FILE           a safetensors file's "__metadata__" as sorted JSON
#   matches SPEC.json FILE  SPEC's tensors are exactly FILE's (names, shapes,
#                           dtypes) and its metadata is SPEC's "metadata"
import hashlib
import json
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


def header(path):
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(size))


def main(argv):
    if argv[0] == "vocabulary":
        print(vocabulary(argv[1]))
    elif argv[0] == "metadata":
        print(json.dumps(header(argv[1]).get("__metadata__", {}),
                         sort_keys=True))
    elif argv[0] == "matches":
        with open(argv[1]) as f:
            spec = json.load(f)
        h = header(argv[2])
        metadata = h.pop("__metadata__", {})
        want = {t["name"]: (t["shape"], t["dtype"]) for t in spec["tensors"]}
        have = {n: (e["shape"], e["dtype"]) for n, e in h.items()}
        assert want == have, (want, have)
        assert metadata == spec["metadata"], (metadata, spec["metadata"])
        print(f"matches: {len(want)} tensors and the metadata")
    else:
        sys.exit(f"unknown command {argv[0]}")


main(sys.argv[1:])
