"""File names that are not valid UTF-8, and the one way every output shows them.

Python decodes a file name with `surrogateescape`: each byte that is not part of valid UTF-8
becomes a lone surrogate (byte 0xff → U+DCFF; under an ASCII file-system encoding, every byte
over 0x7f does). Such a string cannot be printed to a strict
UTF-8 stream, and written raw (`surrogateescape` on the way out, as under a C or C.UTF-8
locale) it puts bytes into JSON and SARIF that strict readers reject. So every encoder shows
it through `printable`: each such byte as the four characters `\\xNN` (lowercase hex, as
Python's own escapes). An escape, not U+FFFD, because it keeps two names apart that differ
only in their bad bytes, and says which bytes they are. Where a format can carry the exact
bytes — a URI — `uri_path` percent-encodes them instead (`%FF`).

`escape_unencodable` is the same rule as a codec error handler, for the CLI's stdout and
stderr: a stray surrogate that reaches a stream (from text no encoder escaped) prints as
`\\xNN` too, and a character the stream's encoding lacks (LC_ALL=C with a non-UTF-8 encoding,
PYTHONIOENCODING=ascii) as a JSON-style `\\uXXXX` escape, which keeps JSON valid (non-ASCII
characters only ever sit inside its strings) and never reads as a byte escape.
"""

from __future__ import annotations

import os
import re
from typing import Any

# any surrogate code point: in a Python str one is always lone (a pair is one code point)
_SURROGATE = re.compile("[\ud800-\udfff]")
# characters a URI path keeps as they are (RFC 3986 pchar, less `:`, which would read as a
# scheme in a relative reference's first segment): `packages/@scope/x` stays readable
_URI_SAFE = "/@!$&'()*+,;="


def _name_bytes(text: str) -> bytes | None:
    """The bytes a surrogateescape'd string stands for, read as UTF-8 (the encoding of every
    file name rulemap reads: also under an ASCII file-system encoding, where Python decodes a
    valid `café` to surrogates too); None when it holds a surrogate no byte gives."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None


def is_undecodable(text: str) -> bool:
    """Whether `text` stands for bytes that are not valid UTF-8 (a file name that is not)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return False
    raw = _name_bytes(text)
    if raw is None:
        return True
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _escape(code: int) -> str:
    if 0xDC80 <= code <= 0xDCFF:  # a byte surrogateescape kept
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"  # a surrogate from elsewhere: no byte to name, its code point


def printable(text: str) -> str:
    """`text` with each byte that is not valid UTF-8 shown as `\\xNN`: valid Unicode that any
    UTF-8 encoder and JSON reader accepts. Bytes that are valid UTF-8 show as their characters
    (even when Python's file-system encoding left them as surrogates). Text without
    surrogates is returned as it is."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text  # the common case, at the cost of one or two scans in C
    raw = _name_bytes(text)
    if raw is not None:
        return raw.decode("utf-8", "backslashreplace")  # each bad byte as `\xff`, lowercase
    return _SURROGATE.sub(lambda m: _escape(ord(m.group())), text)


def printable_data(value: Any) -> Any:
    """`value` (JSON-like data: dicts, lists, tuples, strings, scalars) with `printable`
    applied to every string in it, keys included; what needs no change is returned as is."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(k): printable_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [printable_data(v) for v in value]
    return value


def path_bytes(path: str) -> bytes:
    """The bytes of `path` on disk: as the file system encoding gave it (exact), else as
    UTF-8 with its surrogates as the bytes they stand for; never raises."""
    try:
        return os.fsencode(path)
    except UnicodeEncodeError:  # a character the file-system encoding lacks (ASCII)
        pass
    raw = _name_bytes(path)
    return raw if raw is not None else path.encode("utf-8", "surrogatepass")


def uri_path(path: str) -> str:
    """`path` percent-encoded for a URI, from its bytes on disk: a name that is not valid UTF-8
    gets its exact bytes (`\\xff` → `%FF`), so the URI leads back to the file."""
    from urllib.parse import quote  # only the formats with URIs pay for it

    return quote(path_bytes(path), safe=_URI_SAFE)


ERROR_HANDLER = "rulemap.printable"


def escape_unencodable(exc: UnicodeError) -> tuple[str, int]:
    """A codec error handler (register it as `ERROR_HANDLER`): what a stream cannot encode,
    as `printable` shows it, and any character the stream's encoding still lacks as
    `\\uXXXX` (a UTF-16 pair beyond the BMP, as JSON spells it)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = printable(exc.object[exc.start : exc.end])
    try:
        text.encode(exc.encoding)  # a surrogate run that was valid UTF-8 after all
    except (UnicodeEncodeError, LookupError):
        text = "".join(char if char.isascii() else _json_escape(char) for char in text)
    return text, exc.end


def _json_escape(char: str) -> str:
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"
