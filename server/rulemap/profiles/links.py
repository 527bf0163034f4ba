"""A load as a chain of links, shared by the profiles whose loads go on from one another (a
nested directory's from its parent's, a target's from its directory's): each link keeps its
own files, skips and reads, and a link to the load it continues instead of a copy of it. A
parent is never changed once a child is made from it (links are cached and shared).

`ImportChain` is the importer chain of one file being loaded, as linked (identity, rest)
pairs: a child shares its parent's, so a 3,000-deep chain is not 3,000 growing copies."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from rulemap.model import LoadedFile, Skipped

ImportChain = tuple[str, "ImportChain"] | None

L = TypeVar("L", bound="Linked[Any]")


def on_chain(chain: ImportChain, identity: str) -> bool:
    """Whether `identity` is already loading further up this import chain (a cycle)."""
    while chain is not None:
        if chain[0] == identity:
            return True
        chain = chain[1]
    return False


class Linked(Generic[L]):
    def __init__(self, parent: L | None) -> None:
        self.parent = parent
        self.own_files: list[LoadedFile] = []
        self.own_skipped: list[Skipped] = []
        self._loaded: dict[str, str] = {}  # identity → first path, of this link only
        self.own_reads: set[str] = set()  # workspace keys this link read (for invalidation)

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
            found = link._loaded.get(identity)
            if found is not None:
                return found
            link = link.parent
        return None
