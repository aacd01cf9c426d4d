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


ECHO_BYTES = 80  # MessageText.h kMessageEchoBytes


def _utf8_length(data: bytes, at: int) -> int:
    """Length of the valid UTF-8 sequence starting at data[at] (RFC 3629: no
    overlong forms, no surrogates, <= U+10FFFF), or 0 when none does."""
    first = data[at]
    n = 1 if first < 0x80 else 2 if 0xC2 <= first <= 0xDF else \
        3 if 0xE0 <= first <= 0xEF else 4 if 0xF0 <= first <= 0xF4 else 0
    if n == 0 or at + n > len(data):
        return 0
    try:
        data[at:at + n].decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return 0
    return n


def escape(text, limit: int = ECHO_BYTES) -> str:
    """`text` (str or bytes) made safe to quote in a one-line message, exactly
    as the C++ side's escapeForMessage (MessageText.h) does it: control bytes
    (< 0x20, 0x7F, C1), invalid UTF-8 and backslash become \\xNN (\\\\), and past
    `limit` bytes of UTF-8 the rest is elided as …(N bytes)."""
    data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else bytes(text)
    out = []
    at = 0
    while at < len(data):
        c = data[at]
        n = _utf8_length(data, at)
        if at + (n or 1) > limit:
            break
        if n == 0 or c < 0x20 or c == 0x7F:
            out.append(f"\\x{c:02x}")
            at += 1
        elif c == 0x5C:
            out.append("\\\\")
            at += 1
        elif c == 0xC2 and data[at + 1] < 0xA0:  # C1 controls (U+0080..U+009F)
            out.append(f"\\x{c:02x}\\x{data[at + 1]:02x}")
            at += 2
        else:
            out.append(data[at:at + n].decode("utf-8"))
            at += n
    if at < len(data):
        out.append(f"\u2026({len(data)} bytes)")
    return "".join(out)
