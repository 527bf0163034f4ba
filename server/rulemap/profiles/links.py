"""A load as a chain of links, shared by the profiles whose loads go on from one another (a
nested directory's from its parent's, a target's from its directory's): each link keeps its
own files, skips and reads, and a link to the load it continues instead of a copy of it. A
parent is never changed once a child is made from it (links are cached and shared).

`ImportChain` is the importer chain of one file being loaded, as linked (identity, rest)
pairs: a child shares its parent's, so a 3,000-deep chain is not 3,000 growing copies."""

from __future__ import annotations

import weakref
from collections.abc import Set as AbstractSet
from typing import Any, Final, Generic, TypeVar

from rulemap.model import EMPTY, LoadedFile, Skipped

ImportChain = tuple[str, "ImportChain"] | None

L = TypeVar("L", bound="Linked[Any]")

_NO_READS: Final[frozenset[str]] = frozenset()
_NOTHING_LOADED: Final[dict[str, str]] = {}  # read only: `add_file` gives a link its own

# One object for the files a link loads alike in many loads (a rule every group of a tree
# with 2,000 rules loads with the same note): the load groups of such a tree held 606,000
# LoadedFile objects per agent, ~7,000 of them different (issue #37: 553 MB for the editor's
# overview of cogitator and Claude Code, measured). Weak values: a text edited away is not
# kept alive by this table; nothing changes a LoadedFile once made (model.py).
_SHARED: Final[weakref.WeakValueDictionary[tuple[Any, ...], LoadedFile]] = (
    weakref.WeakValueDictionary())


def shared(loaded: LoadedFile) -> LoadedFile:
    """The one LoadedFile equal to `loaded` that some load already holds, else `loaded`."""
    key = (loaded.path, loaded.reason, loaded.imported_by, loaded.depth, loaded.chars,
           loaded.cut, loaded.import_line, loaded.text, loaded.step,
           loaded.tokens, loaded.truncated, loaded.cut_line, loaded.bytes, loaded.note)
    found = _SHARED.get(key)
    if found is None:
        _SHARED[key] = loaded
        return loaded
    return found


def on_chain(chain: ImportChain, identity: str) -> bool:
    """Whether `identity` is already loading further up this import chain (a cycle)."""
    while chain is not None:
        if chain[0] == identity:
            return True
        chain = chain[1]
    return False


class Linked(Generic[L]):
    # A link's containers are made when it first adds to them: most links add nothing (a
    # directory with no instruction file of its own still has a link in the nested loads,
    # 20,000 of them in a tree 400 levels deep, each with 392 bytes of empty containers).
    def __init__(self, parent: L | None) -> None:
        self.parent = parent
        self.own_files: list[LoadedFile] = EMPTY
        self.own_skipped: list[Skipped] = EMPTY
        # identity → first path, this link's; once the link is complete (`frozen_reads`),
        # a tuple of them when each file was loaded under its own path (the common case: a
        # 40-entry dict is ~1.8 KB, the tuple 0.4; 26 MB over the load groups of 2,000 rules)
        self._loaded: dict[str, str] | tuple[str, ...] = _NOTHING_LOADED
        # workspace keys this link read (for invalidation); never changed in place by others
        self.own_reads: AbstractSet[str] = _NO_READS

    def add_file(self, loaded: LoadedFile, identity: str) -> None:
        """`loaded` is this link's, the first of its `identity`."""
        if self.own_files is EMPTY:
            self.own_files, self._loaded = [], {}
        self.own_files.append(shared(loaded))
        if type(self._loaded) is tuple:  # completed, then added to after all
            self._loaded = dict(zip(self._loaded, self._loaded, strict=True))
        self._loaded[identity] = loaded.path  # type: ignore[index]

    def add_skip(self, skipped: Skipped) -> None:
        if self.own_skipped is EMPTY:
            self.own_skipped = []
        self.own_skipped.append(skipped)

    def add_reads(self, *keys: str) -> None:
        if not keys:
            return
        reads = self.own_reads
        if type(reads) is not set:
            reads = self.own_reads = set(reads)
        reads.update(keys)

    def frozen_reads(self, *extra: str) -> frozenset[str]:
        """This complete link's reads, with `extra`, as one frozen set that stays its own
        reads: the cache entry that keeps the link shares it instead of a copy (a set and
        its frozen copy were ~30 MB each over the load groups of 2,000 rules on 20,000
        files). Its loaded names are made compact too."""
        self.add_reads(*extra)
        reads = self.own_reads
        if type(reads) is not frozenset:
            reads = self.own_reads = frozenset(reads)
        loaded = self._loaded
        if type(loaded) is dict and loaded and all(k == v for k, v in loaded.items()):
            self._loaded = tuple(loaded)
        return reads

    def own_identities(self) -> set[str]:
        """The identities of the files this link loads itself (not its parents')."""
        return set(self._loaded)

    def links(self) -> list[L]:
        """Every link from the first to this one."""
        out: list[Linked[L]] = []
        link: Linked[L] | None = self
        while link is not None:
            out.append(link)
            link = link.parent
        out.reverse()
        return out  # type: ignore[return-value]

    @property
    def files(self) -> list[LoadedFile]:
        return [f for link in self.links() for f in link.own_files]

    @property
    def skipped(self) -> list[Skipped]:
        return [s for link in self.links() for s in link.own_skipped]

    def first_loaded(self, identity: str) -> str | None:
        """The path this load first brought the file with `identity` as, if it did."""
        link: Linked[L] | None = self
        while link is not None:
            loaded = link._loaded
            if type(loaded) is tuple:
                if identity in loaded:
                    return identity
            else:
                found = loaded.get(identity)  # type: ignore[union-attr]
                if found is not None:
                    return found
            link = link.parent
        return None
