"""Readers: all file access of the core goes through one of these."""

from rulemap.readers.base import MAX_FILE_BYTES, Reader, ReadError, is_within
from rulemap.readers.local import LocalReader
from rulemap.readers.memory import MemoryReader
from rulemap.readers.overlay import OverlayReader

__all__ = [
    "MAX_FILE_BYTES",
    "LocalReader",
    "MemoryReader",
    "OverlayReader",
    "ReadError",
    "Reader",
    "is_within",
]
