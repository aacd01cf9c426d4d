"""The one exception type of the proofc Python package.

Every bad input the pure-Python modules find (a malformed safetensors file, a
dataset line, a program's hyperparameters, a failed `proofc compile`) raises
`proofc.Error` with one message that names the file, tensor or argument, as
proofc::Error does in C++ (docs/errors.md). The extension module registers the
runtime's proofc::Error as a subclass of this class, so one `except
proofc.Error` catches both.
"""


class Error(Exception):
    """A bad input or a failed proofc operation; the message says which."""


def escape(text, limit: int = 200) -> str:
    """`text` (str or bytes) made safe to quote in a one-line message: control
    characters and invalid UTF-8 as \\xNN, at most `limit` characters (the
    C++ side's escapeForMessage does the same for its messages)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="backslashreplace")
    out = []
    for c in text:
        o = ord(c)
        out.append(f"\\x{o:02x}" if o < 0x20 or 0x7F <= o <= 0x9F else c)
    s = "".join(out)
    return s if len(s) <= limit else s[:limit] + f"\u2026({len(s)} characters)"
