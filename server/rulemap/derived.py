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
    def __init__(self) -> None:
        self._values: dict[Hashable, tuple[Any, frozenset[str] | None]] = {}

    def get(self, key: Hashable, default: Any = None) -> Any:
        entry = self._values.get(key, _MISSING)
        return default if entry is _MISSING else entry[0]  # type: ignore[index]

    def put(self, key: Hashable, value: Any, reads: Iterable[str] | None) -> Any:
        self._values[key] = (value, frozenset(reads) if reads is not None else None)
        return value

    def invalidate(self, changed: set[str], structural: bool) -> None:
        if structural:
            self._values.clear()
            return
        self._values = {
            key: entry
            for key, entry in self._values.items()
            if entry[1] is not None and not (entry[1] & changed)
        }

    def __len__(self) -> int:
        return len(self._values)
