"""The walk going down by descriptor (readers/walk_descent.py): a deep directory is opened from
its parent's descriptor, and the real paths above a directory are a chain, not a set copied per
directory. What it finds must be what the walk by path finds — files, ignored files, dangling
and looping links, plain paths, and the recording's signatures — with no descriptor left open,
however the walk ends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulemap.readers import local, walk_descent
from rulemap.readers.check_store import signature
from rulemap.readers.local import LocalReader
from rulemap.readers.recording import Recording
from rulemap.readers.recording_reader import recorded_by
from rulemap.readers.walk_descent import is_above

LEVELS = 45  # deeper than walk_descent.DEEP below any temporary directory


def _deep_tree(root: Path) -> Path:
    """A chain `LEVELS` deep with, at depth: files, an ignored file, a .gitignore, a link to a
    directory inside, a link back up (a loop), a dangling link, a link out of the root, and a
    second branch."""
    deep = root.joinpath(*[f"d{i}" for i in range(LEVELS)])
    deep.mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n")
    for i, parent in enumerate([root, *deep.parents]):
        if parent == root or root in parent.parents:
            (parent / f"f{i}.md").write_text(f"level {i}\n")
    (deep / "AGENTS.md").write_text("# deep\n")
    (deep / "debug.log").write_text("ignored\n")
    (deep / ".gitignore").write_text("secret/\n")
    (deep / "secret").mkdir()
    (deep / "secret" / "key.md").write_text("never listed\n")
    (deep / "side").mkdir()
    (deep / "side" / "CLAUDE.md").write_text("side\n")
    (deep / "to-side").symlink_to("side")
    (deep / "up").symlink_to("../..")
    (deep / "gone.md").symlink_to("nowhere.md")
    (deep / "self.md").symlink_to("self.md")
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "AGENTS.md").write_text("outside\n")
    (deep / "out").symlink_to(outside)
    return deep


def _wide_chain(root: Path) -> Path:
    """A chain `LEVELS` deep with a second subdirectory at every level: each level's
    descriptor is held while the walk is below it."""
    deep = root.joinpath(*[f"d{i}" for i in range(LEVELS)])
    deep.mkdir(parents=True)
    for parent in [deep, *deep.parents]:
        if root in parent.parents:
            (parent / "sibling").mkdir()
            (parent / "sibling" / "x.md").write_text("x\n")
    return root


def _walked(reader: LocalReader) -> tuple[list[str], list[str], list[tuple[str, str]], set[str]]:
    files = sorted(reader.list_files())
    return (files, sorted(reader.ignored_files()), sorted(reader.dangling_links()),
            set(reader._plain))  # noqa: SLF001 (the plain paths identities are answered from)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc")


@pytest.mark.parametrize("deep", [0, 32, 10**6], ids=["all-by-descriptor", "default", "by-path"])
def test_the_walk_finds_the_same_by_descriptor_and_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deep: int
) -> None:
    _deep_tree(tmp_path / "w")
    expected = _walked(LocalReader(str(tmp_path / "w")))  # the default
    monkeypatch.setattr(local, "DEEP", deep)
    found = _walked(LocalReader(str(tmp_path / "w")))
    assert found == expected
    files, ignored, dangling, _ = found
    chain = "/".join(f"d{i}" for i in range(LEVELS))
    assert f"{chain}/AGENTS.md" in files
    assert f"{chain}/to-side/CLAUDE.md" in files  # a link to a directory inside: followed
    assert not any("/up/" in f for f in files)  # a link back up: a loop, not followed
    assert not any("/out/" in f for f in files)  # a link out of the root: never followed
    assert not any("secret" in f for f in files)  # a .gitignore at depth
    assert f"{chain}/debug.log" in ignored
    assert {rel for rel, _ in dangling} == {f"{chain}/gone.md", f"{chain}/self.md"}


def test_a_deep_directory_is_listed_from_its_parents_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The point of it: below `DEEP`, a directory is opened by one name, not its path."""
    deep = _deep_tree(tmp_path / "w")
    opened: list[tuple[str, bool]] = []
    real_open = os.open

    def noting_open(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None
                    ) -> int:
        if flags & os.O_DIRECTORY:
            opened.append((path, dir_fd is not None))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(walk_descent.os, "open", noting_open)
    list(LocalReader(str(tmp_path / "w")).list_files())
    relative = [path for path, at in opened if at]
    assert "d44" in relative and "side" in relative
    assert all("/" not in path for path in relative)
    by_path = [path for path, at in opened if not at]
    # by its whole path only the first directory `DEEP` down, whose parent held none
    assert str(deep) not in by_path
    assert len(by_path) == 1 and by_path[0].count("/") >= walk_descent.DEEP


@needs_proc
def test_no_descriptor_is_left_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = _deep_tree(tmp_path / "w")
    (deep / "locked").mkdir()
    (deep / "locked" / "a.md").write_text("x\n")
    (deep / "locked").chmod(0)
    try:
        before = _open_descriptors()
        reader = LocalReader(str(tmp_path / "w"))
        list(reader.list_files())
        reader.files_under("/".join(f"d{i}" for i in range(LEVELS)))
        assert _open_descriptors() == before
    finally:
        (deep / "locked").chmod(0o755)


@needs_proc
def test_past_the_held_limit_directories_open_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tree wide at every level would hold a descriptor per level: past `MAX_HELD` the
    rest open by path, and the walk still finds everything."""
    root = _wide_chain(tmp_path / "w")
    expected = sorted(LocalReader(str(root)).list_files())
    monkeypatch.setattr(local, "DEEP", 0)
    monkeypatch.setattr(local, "MAX_HELD", 3)
    before = _open_descriptors()
    assert sorted(LocalReader(str(root)).list_files()) == expected
    assert len(expected) == LEVELS
    assert _open_descriptors() == before


@needs_proc
def test_a_walk_that_fails_midway_closes_what_it_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "w"
    deep = root.joinpath(*[f"d{i}" for i in range(LEVELS)])
    deep.mkdir(parents=True)
    for parent in [deep, *deep.parents]:  # siblings to go at every level, whatever the order
        if root in parent.parents:
            for n in range(5):
                (parent / f"s{n}").mkdir()
    reader = LocalReader(str(root))
    monkeypatch.setattr(local, "DEEP", 0)
    real_list = LocalReader._list_directory
    during = 0

    def failing(self: LocalReader, directory: str, fd: int | None) -> list[os.DirEntry[str]]:
        nonlocal during
        if directory.endswith(f"/d{LEVELS - 1}"):
            during = _open_descriptors()
            raise RuntimeError("a bug of ours, at the bottom")
        return real_list(self, directory, fd)

    monkeypatch.setattr(LocalReader, "_list_directory", failing)
    before = _open_descriptors()
    with pytest.raises(RuntimeError):
        list(reader.list_files())
    assert during > before + 5  # it was holding descriptors when it failed
    assert _open_descriptors() == before


def test_a_recording_notes_the_same_signatures_by_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's record of a directory listed by descriptor (`fstat`, before the listing)
    is the record of it listed by path."""
    _deep_tree(tmp_path / "w")
    records = []
    for deep in (0, 10**6):
        monkeypatch.setattr(local, "DEEP", deep)
        recording = Recording()
        list(recorded_by(recording)(str(tmp_path / "w")).list_files())
        records.append(recording.all_dirs())
    assert records[0] == records[1]
    chain = str(tmp_path / "w" / "/".join(f"d{i}" for i in range(LEVELS)))
    assert records[0][chain][0] == signature(chain)


@given(st.lists(st.sampled_from(["/a", "/a/b", "/c", "/a/b/c", "/d"]), max_size=8),
       st.frozensets(st.sampled_from(["/a", "/x", "/"]), max_size=3),
       st.sampled_from(["/a", "/a/b", "/c", "/x", "/", "/e"]))
def test_the_chain_above_answers_as_the_set_did(
    chain: list[str], start: frozenset[str], real: str
) -> None:
    above: walk_descent.Above = start
    for path in chain:
        above = (path, above)
    assert is_above(real, above) == (real in start | set(chain))
