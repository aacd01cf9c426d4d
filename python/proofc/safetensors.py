"""The project's safetensors files from Python, with no package beyond numpy.

Layout (runtime/src/data/Safetensors.cpp, the authority): an 8-byte
little-endian header size N, N bytes of JSON {"<name>": {"dtype": "F32",
"shape": [...], "data_offsets": [begin, end]}, ..., "__metadata__": {str:
str}}, then the data, offsets counted from the first byte after the header.
proofc weights are float32 only.

The reader is as strict as the C++ one, with the same messages: a header that
is not one JSON object, a key listed twice (at any depth), a dtype other than
F32, offsets that run past the data, disagree with the shape or overlap
another tensor's, a non-string metadata value, and any NaN or infinity are
refused with one `proofc.Error` naming the file and the tensor.

The writer produces the C++ writer's bytes: tensors sorted by name, their data
in that order, compact JSON with sorted keys padded with spaces to a multiple
of 8, written atomically (temporary file, then rename). It takes numpy arrays
or torch tensors (any device; detached and copied to the host), refuses other
dtypes than float32 and non-finite values (the reader would refuse the file).

The weights contract (docs/weights.md, issue 18): proofc writes
`weights_metadata(program, data_dir)` = {"format": "pt", "proofc.program":
<program name>, "proofc.vocabulary": vocabulary_fingerprint(data_dir)} and
refuses a file whose "proofc.vocabulary" disagrees with the dataset.
"""

import json
import math
import os
import secrets
import struct
from typing import Any, Dict, Mapping, Optional, Tuple

import numpy as np

from .errors import Error, escape
from .vocabulary import vocabulary_fingerprint

METADATA_KEY = "__metadata__"
PROGRAM_KEY = "proofc.program"
VOCABULARY_KEY = "proofc.vocabulary"
# The C++ reader's limits (Safetensors.h).
MAX_HEADER_BYTES = 100_000_000
MAX_TENSORS = 100_000
_U64_MAX = (1 << 64) - 1
_I64_MAX = (1 << 63) - 1
_JSON_ERROR_CHARS = 320

Tensors = Dict[str, np.ndarray]
Metadata = Dict[str, str]


# ----------------------------------------------------------------- reading --

class _Pairs(list):
    """A JSON object as its (key, value) list, so duplicates can be named."""


class _BadConstant(Exception):
    pass


def _reject_constant(name):
    raise _BadConstant(name)


def _objects(value, path: str, top: Optional[str]):
    """`value` with every _Pairs turned into a dict; a repeated key is an
    error naming the top-level entry it is in (document order)."""
    if isinstance(value, list) and not isinstance(value, _Pairs):
        return [_objects(v, path, top) for v in value]
    if not isinstance(value, _Pairs):
        return value
    out = {}
    for key, item in value:
        if key in out:
            if top is None:
                raise Error(f"{path}: tensor '{escape(key)}' is listed twice in the header")
            if top == METADATA_KEY:
                raise Error(f"{path}: '{METADATA_KEY}': duplicate key '{escape(key)}'")
            raise Error(f"{path}: tensor '{escape(top)}': duplicate key '{escape(key)}'")
        out[key] = _objects(item, path, key if top is None else top)
    return out


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _dump(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _count(value, path: str, name: str, what: str) -> int:
    """A non-negative JSON integer below 2^64 (C++ asCount)."""
    if _is_int(value) and 0 <= value <= _U64_MAX:
        return value
    if _is_int(value) and value < 0:
        raise Error(f"{path}: tensor '{escape(name)}': negative {what} {value}")
    raise Error(f"{path}: tensor '{escape(name)}': {what} must be an integer, "
                f"found {escape(_dump(value))}")


def _first_non_finite(array: np.ndarray) -> str:
    """'nan at index [i, j]' (or inf, -inf) for the first non-finite value, or ''."""
    bad = ~np.isfinite(array)
    if not bad.any():
        return ""
    flat = int(np.flatnonzero(bad.reshape(-1))[0])
    value = float(array.reshape(-1)[flat])
    what = "nan" if math.isnan(value) else ("-inf" if value < 0 else "inf")
    index = np.unravel_index(flat, array.shape) if array.ndim else ()
    return f"{what} at index [{', '.join(str(int(i)) for i in index)}]"


def parse(data: bytes, path: str = "<bytes>") -> Tuple[Tensors, Metadata]:
    """The float32 tensors (C-contiguous numpy arrays, owning their memory) and
    the "__metadata__" map ({} when absent) of a safetensors file's bytes;
    `path` names the file in errors."""
    data = memoryview(data).cast("B")
    if len(data) < 8:
        raise Error(f"{path}: file is {len(data)} bytes, shorter than the 8-byte header size")
    (header_size,) = struct.unpack("<Q", data[:8])
    if header_size > len(data) - 8:
        raise Error(f"{path}: header size {header_size} runs past the end of the file "
                    f"({len(data)} bytes)")
    if header_size > MAX_HEADER_BYTES:
        raise Error(f"{path}: header size {header_size} is larger than {MAX_HEADER_BYTES} "
                    f"bytes (the limit)")
    header_bytes = bytes(data[8:8 + header_size])
    payload = data[8 + header_size:]
    nul = header_bytes.find(b"\0")
    if nul >= 0:
        raise Error(f"{path}: header is not valid JSON: NUL byte at offset {8 + nul}")
    try:
        text = header_bytes.decode("utf-8", errors="strict")
        raw = json.loads(text, object_pairs_hook=_Pairs, parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise Error(f"{path}: header is not valid JSON: invalid UTF-8 at offset "
                    f"{8 + e.start}") from None
    except _BadConstant as e:
        raise Error(f"{path}: header is not valid JSON: '{e}' is not a JSON value") from None
    except (json.JSONDecodeError, RecursionError) as e:
        raise Error(f"{path}: header is not valid JSON: "
                    f"{escape(str(e), _JSON_ERROR_CHARS)}") from None
    if isinstance(raw, _Pairs) and len(raw) > MAX_TENSORS + 1:  # + __metadata__
        raise Error(f"{path}: the header lists more than {MAX_TENSORS} tensors (the limit)")
    header = _objects(raw, path, None)
    if not isinstance(header, dict):
        raise Error(f"{path}: header is not a JSON object")

    tensors: Tensors = {}
    metadata: Metadata = {}
    regions = []
    for name, info in header.items():
        if name == METADATA_KEY:
            if not isinstance(info, dict):
                raise Error(f"{path}: '{METADATA_KEY}' is not a JSON object")
            for key, value in info.items():
                if not isinstance(value, str):
                    raise Error(f"{path}: '{METADATA_KEY}': value of '{escape(key)}' is not "
                                f"a string (found {escape(_dump(value), _JSON_ERROR_CHARS)})")
            metadata = dict(info)
            continue
        quoted = escape(name)
        if not isinstance(info, dict):
            raise Error(f"{path}: tensor '{quoted}': entry is not a JSON object")
        for field in info:
            if field not in ("dtype", "shape", "data_offsets"):
                raise Error(f"{path}: tensor '{quoted}': unexpected field '{escape(field)}'")
        dtype = info.get("dtype")
        if not isinstance(dtype, str):
            raise Error(f"{path}: tensor '{quoted}': missing or non-string 'dtype'")
        if dtype != "F32":
            raise Error(f"{path}: tensor '{quoted}' has dtype {escape(dtype)}, "
                        f"only F32 is supported")
        shape = info.get("shape")
        if not isinstance(shape, list):
            raise Error(f"{path}: tensor '{quoted}': missing or non-array 'shape'")
        dims = [_count(dim, path, name, "dimension") for dim in shape]
        numel = 1
        for n in dims:
            numel *= n
        if any(n > _I64_MAX for n in dims) or numel * 4 > _U64_MAX:
            raise Error(f"{path}: tensor '{quoted}': shape is too large")
        offsets = info.get("data_offsets")
        if not isinstance(offsets, list) or len(offsets) != 2:
            raise Error(f"{path}: tensor '{quoted}': 'data_offsets' must be an array "
                        f"[begin, end]")
        begin = _count(offsets[0], path, name, "data offset")
        end = _count(offsets[1], path, name, "data offset")
        if begin > end:
            raise Error(f"{path}: tensor '{quoted}': data_offsets [{begin}, {end}] has "
                        f"begin > end")
        if end > len(payload):
            raise Error(f"{path}: tensor '{quoted}': data_offsets [{begin}, {end}] run past "
                        f"the end of the data ({len(payload)} bytes)")
        if end - begin != numel * 4:
            raise Error(f"{path}: tensor '{quoted}': data is {end - begin} bytes, but shape "
                        f"needs {numel} x 4 bytes")
        array = np.frombuffer(payload[begin:end], dtype="<f4").astype(np.float32)
        array = array.reshape(tuple(dims))
        bad = _first_non_finite(array)
        if bad:
            raise Error(f"{path}: tensor '{quoted}': non-finite value {bad}")
        regions.append((begin, end, name))
        tensors[name] = array

    # Data regions never share bytes; gaps are tolerated.
    previous = None
    for begin, end, name in sorted(regions):
        if begin == end:
            continue
        if previous is not None and begin < previous[1]:
            raise Error(f"{path}: tensors '{escape(previous[2])}' and '{escape(name)}' overlap "
                        f"(data_offsets [{previous[0]}, {previous[1]}] and [{begin}, {end}])")
        previous = (begin, end, name)
    return tensors, metadata


def _read_bytes(path) -> bytes:
    path = os.fspath(path)
    if os.path.isdir(path):
        raise Error(f"{path}: cannot read: is a directory")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise Error(f"{path}: cannot read: {e.strerror or e}") from None


def read_with_metadata(path) -> Tuple[Tensors, Metadata]:
    """(tensors, metadata) of a safetensors file; see parse()."""
    return parse(_read_bytes(path), os.fspath(path))


def read(path) -> Tensors:
    """The float32 tensors of a safetensors file by name (numpy arrays)."""
    return read_with_metadata(path)[0]


# ----------------------------------------------------------------- writing --

def _host_float32(value: Any, path: str, name: str) -> np.ndarray:
    """A C-contiguous little-endian float32 numpy copy of a numpy array or a
    torch tensor (any device); other dtypes are refused, not converted."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch.Tensor
        if str(value.dtype) != "torch.float32":  # bfloat16 has no numpy dtype
            raise Error(f"{path}: tensor '{escape(name)}' has dtype {value.dtype}; proofc "
                        f"weights are float32")
        value = value.detach().cpu().numpy()
    if isinstance(value, np.generic):  # a numpy scalar: a 0-d array
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise Error(f"{path}: tensor '{escape(name)}' is a {type(value).__name__}, expected "
                    f"a numpy array or a torch tensor")
    if value.dtype != np.float32:
        raise Error(f"{path}: tensor '{escape(name)}' has dtype {value.dtype}; proofc weights "
                    f"are float32")
    bad = _first_non_finite(value)
    if bad:
        raise Error(f"{path}: tensor '{escape(name)}': non-finite value {bad}")
    return value.astype("<f4", order="C", copy=False)  # keeps 0-d arrays 0-d


def dumps(tensors: Mapping[str, Any], metadata: Optional[Mapping[str, str]] = None,
          path: str = "<bytes>") -> bytes:
    """The bytes write() writes; `path` names the destination in errors."""
    arrays = {}
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise Error(f"{path}: tensor name {escape(repr(name))} is not a string")
        if name == METADATA_KEY:
            raise Error(f"{path}: cannot write a tensor named '{METADATA_KEY}'")
        arrays[name] = _host_float32(value, path, name)
    header: Dict[str, Any] = {}
    if metadata:
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise Error(f"{path}: '{METADATA_KEY}': {escape(repr(key))}: "
                            f"{escape(repr(value))} is not a string to a string")
        header[METADATA_KEY] = dict(metadata)
    # Sorted by UTF-8 bytes (the order of code points), as std::map sorts them.
    order = sorted(arrays)
    offset = 0
    for name in order:
        size = arrays[name].nbytes
        header[name] = {"dtype": "F32", "shape": list(arrays[name].shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    try:
        text = json.dumps(header, ensure_ascii=False, separators=(",", ":"),
                          sort_keys=True).encode("utf-8")
    except UnicodeEncodeError:
        raise Error(f"{path}: a tensor name or a metadata string is not valid UTF-8") from None
    text += b" " * ((8 - len(text) % 8) % 8)
    return b"".join([struct.pack("<Q", len(text)), text] +
                    [arrays[name].tobytes() for name in order])


def write(path, tensors: Mapping[str, Any], metadata: Optional[Mapping[str, str]] = None):
    """Writes `tensors` (name -> float32 numpy array or torch tensor) and the
    optional string map `metadata` to `path` atomically: a temporary file in
    the same directory (mode 0666 less the umask, or the mode of the file it
    replaces), renamed over `path` once complete."""
    path = os.fspath(path)
    data = dumps(tensors, metadata, path)
    directory = os.path.dirname(path) or "."
    tmp = None
    try:
        for attempt in range(100):
            tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}."
                                          f"{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
                break
            except FileExistsError:
                tmp = None
        if tmp is None:
            raise Error(f"{path}: cannot write: no free temporary file name")
        with os.fdopen(fd, "wb") as f:
            if os.path.isfile(path):
                os.fchmod(f.fileno(), os.stat(path).st_mode & 0o7777)
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise Error(f"{path}: cannot write: {e.strerror or e}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def weights_metadata(program_name: str, data_dir: str) -> Metadata:
    """The "__metadata__" proofc writes for weights of `program_name` on the
    dataset in `data_dir` (the weights contract above)."""
    return {"format": "pt", PROGRAM_KEY: program_name,
            VOCABULARY_KEY: vocabulary_fingerprint(data_dir)}
