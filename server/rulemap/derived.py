"""Values derived from many files, each kept with the set of files it read.

`Workspace.update` drops only the entries that read a changed file; an entry stored without a
read set (or any entry, after a file is created or deleted) is dropped on every change. This is
what makes an edit to one nested AGENTS.md recompute the loads below it, not all 400.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

_MISSING = object()

# Pseudo-keys: what derived values read besides files.
# Which rules are path-scoped (and which are skipped): invalidated when a rule gains or loses
# `paths`, not when only its globs or its body change.
RULE_SCOPES = "*rule-scopes*"


def rules_for(path: str) -> str:
    """The pseudo-key of which scoped rules match `path`: invalidated only for the files that
    a rule's new globs match differently."""
    return "rules-for:" + path
# Read by everything derived from the import edges alone: invalidated when some file's imports
# (or their resolution) change, not when only its prose does.
IMPORT_GRAPH = "*import-graph*"


class DerivedCache:
    """Derived values with what they read. A value built on another one (a nested load on its
    parent's) names it in `after`: dropping the parent drops it too, so the child need not
    repeat every file the parent read (which made deep or wide trees quadratic)."""

    def __init__(self) -> None:
        self._values: dict[Hashable, tuple[Any, frozenset[str] | None]] = {}
        self._dependents: dict[Hashable, set[Hashable]] = {}  # key → keys built on it

    def get(self, key: Hashable, default: Any = None) -> Any:
        entry = self._values.get(key, _MISSING)
        return default if entry is _MISSING else entry[0]  # type: ignore[index]

    def put(
        self,
        key: Hashable,
        value: Any,
        reads: Iterable[str] | None,
        after: Iterable[Hashable] = (),
    ) -> Any:
        self._values[key] = (value, frozenset(reads) if reads is not None else None)
        for parent in after:
            if parent not in self._values:  # already gone: so is this
                del self._values[key]
                return value
            self._dependents.setdefault(parent, set()).add(key)
        return value

    def invalidate(self, changed: set[str], structural: bool) -> None:
        if structural:
            self._values.clear()
            self._dependents.clear()
            return
        dropped = [
            key
            for key, entry in self._values.items()
            if entry[1] is None or entry[1] & changed
        ]
        while dropped:
            key = dropped.pop()
            if self._values.pop(key, _MISSING) is _MISSING and key not in self._dependents:
                continue
            dropped.extend(self._dependents.pop(key, ()))

    def __len__(self) -> int:
        return len(self._values)
