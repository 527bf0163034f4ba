"""Probes answered from the walk's listings (readers/base.py `missing_by_listing`): a one-shot
command's reader says a name below a walked directory is missing without asking the disk, and
says exactly what the disk would; a long-lived reader, and the language server's once its first
check is done, always asks (files appear under it)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulemap.readers.base import missing_by_listing
from rulemap.readers.local import LocalReader
from rulemap.readers.recording import Recording

NAMES = st.sampled_from([".git", ".claude", "CLAUDE.md", "AGENTS.md", "src", "a.ts", ".x"])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    files=st.lists(st.lists(NAMES, min_size=1, max_size=4), min_size=1, max_size=8),
    probes=st.lists(st.lists(NAMES, min_size=1, max_size=5), min_size=1, max_size=20),
)
def test_a_one_shot_reader_answers_as_the_disk_does(
    tmp_path_factory: object, files: list[list[str]], probes: list[list[str]]
) -> None:
    root = Path(tmp_path_factory.mktemp("tree"))  # type: ignore[attr-defined]
    for parts in files:
        target = root.joinpath(*parts)
        if any(p.is_file() for p in target.parents if p != root and p.is_relative_to(root)):
            continue  # a file where a directory would be
        if target.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n")
    reader = LocalReader(str(root), one_shot=True)
    list(reader.list_files())
    for parts in probes:
        path = str(root.joinpath(*parts))
        assert reader.exists(path) == os.path.exists(path), path


def test_listing_answers_are_for_dot_names_below_listed_directories(tmp_path: Path) -> None:
    listed = {"": frozenset({".git"}), "pkg": frozenset()}
    assert missing_by_listing(listed, "pkg/.claude/CLAUDE.md", dot_names_only=True)
    assert not missing_by_listing(listed, ".git", dot_names_only=True)
    assert not missing_by_listing(listed, "pkg/AGENTS.md", dot_names_only=True)  # not kept
    assert missing_by_listing({"/w": frozenset({"a"})}, "/w/b/c")
    assert not missing_by_listing({"/w": frozenset({"a"})}, "/w/a/c")
    assert not missing_by_listing({"/w": frozenset({"a"})}, "/elsewhere/x")


def test_a_long_lived_reader_sees_a_file_created_after_the_walk(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    reader = LocalReader(str(tmp_path))
    list(reader.list_files())
    created = tmp_path / "pkg" / ".claude" / "CLAUDE.md"
    created.parent.mkdir()
    created.write_text("x\n")
    assert reader.exists(str(created))


def test_the_language_server_asks_the_disk_once_its_first_check_is_done(tmp_path: Path) -> None:
    """Its reader records that check for the start cache and answered probes from the walk
    while it ran; a `.claude/CLAUDE.md` created afterwards exists for it."""
    from rulemap.lsp.opening import open_folder

    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("# root\n")
    (tmp_path / "pkg" / "src").mkdir(parents=True)
    (tmp_path / "pkg" / "src" / "a.ts").write_text("x\n")
    host, errors, findings, _given = open_folder(
        str(tmp_path), {}, {}, str(tmp_path / "home"), check_now=True, recording=Recording()
    )
    assert host is not None and errors == [] and findings is not None
    created = tmp_path / "pkg" / ".claude" / "CLAUDE.md"
    created.parent.mkdir()
    created.write_text("# pkg\n")
    assert host.snapshot().exists("pkg/.claude/CLAUDE.md")
