"""Bytes → text: binary and UTF-8 errors become a reason, never an exception."""

from __future__ import annotations


def decode(data: bytes) -> tuple[str, str | None]:
    """The text, or "" and why it is unusable (binary, not UTF-8)."""
    if b"\x00" in data[:8192] or b"\x00" in data:
        return "", "it is a binary file (it contains NUL bytes)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return "", f"it is not valid UTF-8 (byte 0x{data[exc.start]:02x} on line {line})"
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None
