"""`Deferred`: a class attribute made by a module imported when it is first read.

A profile's session and load-log formats (`Profile.transcript_format`, `load_log_format`)
bring their parsers, which a check never runs: declared as `Deferred`, they are imported by
`rulemap session` and `rulemap verify` alone (tests/core/test_startup_imports.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Deferred(Generic[T]):
    """`get()` is the value; it holds the import, so the import graph still sees it
    (tests/core/test_import_circles.py)."""

    def __init__(self, get: Callable[[], T]) -> None:
        self._get = get
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, obj: object, owner: type | None = None) -> T:
        value = self._get()
        # the value in its place: later reads are plain attribute reads
        setattr(owner if owner is not None else type(obj), self._name, value)
        return value
