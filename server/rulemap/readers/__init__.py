"""Readers: all file access of the core goes through one of these.

The names below are imported when first asked for (PEP 562), not with the package: a module of
`readers/` that needs none of them — the check cache's store, which a warm `rulemap check`
imports alone — must not pay for `local.py`'s glob engine (pathspec, ~30 ms)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# each name → the module of readers/ that defines it
_MODULES = {
    "MAX_FILE_BYTES": "base", "Reader": "base", "ReadError": "base", "is_within": "base",
    "LocalReader": "local", "MemoryReader": "memory", "OverlayReader": "overlay",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'rulemap.readers' has no attribute {name!r}")
    return getattr(importlib.import_module(f"rulemap.readers.{module}"), name)
