"""A load's links once complete: their reads frozen and shared, their loaded names compact,
and what a link answers unchanged by either."""

from __future__ import annotations

from rulemap.model import LoadedFile
from rulemap.profiles.links import Linked


class _Link(Linked["_Link"]):
    def child(self) -> _Link:
        return _Link(self)


def _file(path: str) -> LoadedFile:
    return LoadedFile(path, "scoped", None, 0, 1)


def test_frozen_reads_are_the_links_reads_with_the_extra_keys_shared_not_copied() -> None:
    link = _Link(None)
    link.add_reads("a.md", "b.md")
    reads = link.frozen_reads("*rule-scopes*")
    assert reads == {"a.md", "b.md", "*rule-scopes*"}
    assert isinstance(reads, frozenset)
    assert link.own_reads is reads
    assert link.frozen_reads() is reads  # frozen once
    link.add_reads("c.md")  # read again after all: its own set, the frozen one untouched
    assert link.own_reads == {"a.md", "b.md", "*rule-scopes*", "c.md"}
    assert reads == {"a.md", "b.md", "*rule-scopes*"}


def test_a_completed_link_finds_what_it_loaded_by_identity_as_before() -> None:
    parent = _Link(None)
    parent.add_file(_file("x.md"), "x.md")
    parent.add_file(_file("link.md"), "real.md")  # a symlink: identity is not its path
    parent.frozen_reads()
    link = parent.child()
    link.add_file(_file("a.md"), "a.md")
    link.add_file(_file("b.md"), "b.md")
    link.frozen_reads()
    for identity, first in [("a.md", "a.md"), ("b.md", "b.md"), ("x.md", "x.md"),
                            ("real.md", "link.md"), ("link.md", None), ("c.md", None)]:
        assert link.first_loaded(identity) == first, identity
    link.add_file(_file("c.md"), "c.md")  # added to after it was completed
    assert [link.first_loaded(i) for i in ("a.md", "c.md")] == ["a.md", "c.md"]
    assert [f.path for f in link.files] == ["x.md", "link.md", "a.md", "b.md", "c.md"]
