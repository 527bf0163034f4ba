"""Values derived from many files, each kept with the set of files it read.

`Workspace.update` drops only the entries that read a changed file; an entry stored without a
read set (or any entry, after a file is created or deleted) is dropped on every change. This is
what makes an edit to one nested AGENTS.md recompute the loads below it, not all 400.

Keys are typed: each kind of value has a `KeyFamily[V]`, declared once next to the code that
owns it under a name no other family has; `FAMILY.key(*args)` is a `Key[V]`, so `get` returns
a `V | None` and `put` takes a `V`, with no annotation at the call site. The read sets hold
file keys and the pseudo-keys below (plain strings, not cache keys).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable, Iterator
from typing import Any, ClassVar, Final, Generic, TypeAlias, TypeVar, overload

from rulemap.model import EMPTY

V = TypeVar("V")
D = TypeVar("D")

_MISSING = object()


class Key(tuple[Hashable, ...], Generic[V]):
    """A derived-cache key: its family's name, then the family's arguments. A tuple (subclass:
    it hashes and compares as fast as one, and like one: the same family and arguments are the
    same entry); `V` is the type of the value stored under it. Made by `KeyFamily.key`."""

    __slots__ = ()


AnyKey: TypeAlias = "Key[Any]"


class KeyFamily(Generic[V]):
    """The keys of one kind of derived value, declared once next to the code that owns it:
    `EXPLAIN: Final = KeyFamily[Explanation]("explain")`, then `EXPLAIN.key(name, target)`.
    Names are unique (a second family of the same name raises), so two families never share
    an entry, whatever their arguments."""

    _names: ClassVar[set[str]] = set()

    def __init__(self, name: str) -> None:
        if name in KeyFamily._names:
            raise ValueError(f"derived-cache key family {name!r} is declared twice")
        KeyFamily._names.add(name)
        self.name = name

    def key(self, *args: Hashable) -> Key[V]:
        """The key of this family's value for `args` (each hashable)."""
        return Key((self.name, *args))

    def __repr__(self) -> str:
        return f"KeyFamily({self.name!r})"


class Missing(enum.Enum):
    """`get(key, MISSING)`: tells a stored None from no entry."""

    MISSING = 0


MISSING: Final = Missing.MISSING

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
# Read by what follows only the imports that load a file of the workspace (which documents
# are imported, which are linted): invalidated when those change, not when an import that
# names no file does — typing `@docs/arch…` one key at a time names a missing file at each.
REACHING_IMPORTS = "*reaching-imports*"


# What an entry read: a tuple when it is a few files (most entries read their own document
# alone: a one-element frozenset is 216 bytes, the tuple 48, and 180,000 entries of a 20,000-
# import workspace held 33 MB of them), a frozenset when it is more (a change is tested
# against it in time independent of its size). `set.isdisjoint` takes either.
ReadSet: TypeAlias = "frozenset[str] | tuple[str, ...]"
_SMALL_READS: Final = 8


def read_set(reads: Iterable[str]) -> ReadSet:
    """`reads` as an entry keeps them: a few as a tuple (a frozenset is 216 bytes however
    few it holds), more as a frozenset; a tuple or a large frozenset as it is (shared)."""
    if isinstance(reads, frozenset):
        if len(reads) > _SMALL_READS:
            return reads
        reads = tuple(reads)
    elif not isinstance(reads, tuple):
        reads = tuple(reads)
    return reads if len(reads) <= _SMALL_READS else frozenset(reads)


def _shared_empty(value: V) -> V:
    """One empty list for all stored empty lists (rulemap.model.EmptyList)."""
    return EMPTY if type(value) is list and not value else value


class DerivedCache:
    """Derived values with what they read. A value built on another one (a nested load on its
    parent's) names it in `after`: dropping the parent drops it too, so the child need not
    repeat every file the parent read (which made deep or wide trees quadratic)."""

    def __init__(self) -> None:
        self._values: dict[AnyKey, tuple[Any, ReadSet | None]] = {}
        # key → the key built on it, or a set of them when there are more: most values have
        # one at most (a set is 216 bytes, and a tree 400 levels deep had 22,500 of one key)
        self._dependents: dict[AnyKey, AnyKey | set[AnyKey]] = {}
        # the read set of one file, shared by the many values that read that file alone
        # (seven per document on a large workspace: a 48-byte tuple each)
        self._alone: dict[str, tuple[str]] = {}
        # read key → the entries with a few reads (a tuple) that read it, so an edit looks
        # up what it drops instead of testing all 75,000 entries of a deep tree (7–10 ms a
        # keystroke on the editor's loop). Refs go stale when an entry is dropped or put
        # again with other reads: each is checked against the entry's reads before a drop,
        # and a changed key's refs are dropped with it.
        self._by_read: dict[str, AnyKey | set[AnyKey]] = {}
        # the entries with many reads (a frozenset) or none, tested one by one as before:
        # few, and indexing their reads would cost more memory than they hold
        self._wide: set[AnyKey] = set()

    def share_bookkeeping(self, other: DerivedCache) -> None:
        """Take `other`'s dependents and indexes, for values under the same keys with the
        same reads (a snapshot's cache holds stand-ins for `other`'s values): every field of a
        DerivedCache but the values, so an index added to it is never left empty in a copy and
        an edit still finds what it drops."""
        for name in vars(DerivedCache()):
            if name != "_values":
                setattr(self, name, getattr(other, name))

    @overload
    def get(self, key: Key[V]) -> V | None: ...
    @overload
    def get(self, key: Key[V], default: D) -> V | D: ...

    def get(self, key: AnyKey, default: object = None) -> object:
        """The value stored under `key`, else `default` (pass `MISSING` when None is a value)."""
        entry = self._values.get(key, _MISSING)
        return default if entry is _MISSING else entry[0]  # type: ignore[index]

    def put(
        self,
        key: Key[V],
        value: V,
        reads: Iterable[str] | None,
        after: Iterable[AnyKey] = (),
    ) -> V:
        """Store `value` under `key`, with the files (and pseudo-keys) it read (None: dropped
        on every change) and the entries it was built on; returns `value`."""
        if reads is None:
            kept: ReadSet | None = None
        else:
            kept = read_set(reads)
            if len(kept) == 1 and type(kept) is tuple:
                kept = self._alone.setdefault(kept[0], kept)
        value = _shared_empty(value)
        self._values[key] = (value, kept)
        # the one-or-a-set tables below are filled inline, as `_dependents` is after them:
        # `put` runs ~30,000 times a check, and a helper call each would cost more than it reads
        if type(kept) is tuple:
            by_read = self._by_read
            for read in kept:
                refs = by_read.get(read)
                if refs is None:
                    by_read[read] = key
                elif type(refs) is set:
                    refs.add(key)
                elif refs != key:
                    by_read[read] = {refs, key}  # type: ignore[arg-type]
        else:
            self._wide.add(key)
        dependents = self._dependents
        for parent in after:
            if parent not in self._values:  # already gone: so is this
                del self._values[key]
                return value
            known = dependents.get(parent)
            if known is None:
                dependents[parent] = key
            elif type(known) is set:
                known.add(key)
            elif known != key:
                dependents[parent] = {known, key}  # type: ignore[arg-type]
        return value

    def invalidate(self, changed: set[str], structural: bool) -> None:
        if structural:
            self._values.clear()
            self._dependents.clear()
            self._alone.clear()
            self._by_read.clear()
            self._wide.clear()
            return
        values = self._values
        candidates: list[AnyKey] = []
        for read in changed:
            refs = self._by_read.pop(read, None)
            if type(refs) is set:
                candidates.extend(refs)
            elif refs is not None:
                candidates.append(refs)  # type: ignore[arg-type]
        wide = self._wide
        self._wide = {key for key in wide if key in values and type(values[key][1]) is not tuple}
        candidates.extend(self._wide)
        dropped = []
        for key in candidates:
            entry = values.get(key)
            if entry is not None and (entry[1] is None or not changed.isdisjoint(entry[1])):
                dropped.append(key)
        while dropped:
            key = dropped.pop()
            if self._values.pop(key, _MISSING) is _MISSING and key not in self._dependents:
                continue
            built = self._dependents.pop(key, None)
            if type(built) is set:
                dropped.extend(built)
            elif built is not None:
                dropped.append(built)  # type: ignore[arg-type]

    def read_sets(self) -> Iterator[ReadSet]:
        """What each stored value read (those stored without a read set left out: they go on
        any change)."""
        return (entry[1] for entry in self._values.values() if entry[1] is not None)

    def __len__(self) -> int:
        return len(self._values)


class OneLookCache(DerivedCache):
    """The derived values of a workspace looked at once and dropped (a command's check that
    leaves no snapshot to resume from): each value alone, without what it read or what was
    built on it — nothing changes under such a workspace. On the 20,000-import tree that was
    10 MB of a check's peak for 92,000 values, and 10 % of its time. A change (none is
    expected) drops every value; there are no read sets to resume from."""

    def __init__(self) -> None:
        super().__init__()
        self._plain: dict[AnyKey, Any] = {}

    @staticmethod
    def of(cache: DerivedCache) -> OneLookCache:
        """`cache`'s values, kept from now on as a `OneLookCache`."""
        one = OneLookCache()
        one._plain = {key: entry[0] for key, entry in cache._values.items()}
        return one

    @overload
    def get(self, key: Key[V]) -> V | None: ...
    @overload
    def get(self, key: Key[V], default: D) -> V | D: ...

    def get(self, key: AnyKey, default: object = None) -> object:
        return self._plain.get(key, default)

    def put(
        self,
        key: Key[V],
        value: V,
        reads: Iterable[str] | None,
        after: Iterable[AnyKey] = (),
    ) -> V:
        value = _shared_empty(value)
        self._plain[key] = value
        return value

    def invalidate(self, changed: set[str], structural: bool) -> None:
        self._plain.clear()

    def read_sets(self) -> Iterator[ReadSet]:
        raise RuntimeError("a one-look workspace keeps no read sets: it cannot be resumed")

    def __len__(self) -> int:
        return len(self._plain)
