"""Core answers to hostile inputs: special files, globs no regex accepts, `@.`, and the derived
cache dropping what was built on a dropped value."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from core_helpers import make_ws

from rulemap import analysis
from rulemap.analysis import new_workspace
from rulemap.derived import DerivedCache
from rulemap.globs import CompiledGlobs, literal_tail, pattern_error
from rulemap.readers.base import ReadError
from rulemap.readers.local import LocalReader
from rulemap.readers.regular_file import read_regular_file

T = TypeVar("T")


def within(seconds: float, work: Callable[[], T]) -> T:
    """Run `work` in a daemon thread: a regression that blocks on a FIFO fails, not hangs."""
    box: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            box.append((True, work()))
        except BaseException as exc:  # handed to the caller's thread
            box.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"still running after {seconds} s (blocked on a special file?)"
    ok, value = box[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]


def test_special_files_are_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")  # opening it for reading would block forever
    (tmp_path / "pkg").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "pkg/AGENTS.md"))
    try:
        with pytest.raises(ReadError, match=r"not a regular file \(a named pipe\)"):
            within(10, lambda: read_regular_file(str(tmp_path / "AGENTS.md")))
        with pytest.raises(ReadError, match=r"not a regular file \(a socket\)"):
            read_regular_file(str(tmp_path / "pkg/AGENTS.md"))
        with pytest.raises(ReadError, match=r"a device"):
            read_regular_file("/dev/null")
        ws = new_workspace(LocalReader(str(tmp_path)))
        findings = within(10, lambda: analysis.check(ws))
        messages = {f.path: f.message for f in findings if f.code == "unreadable-file"}
        assert "named pipe" in messages["AGENTS.md"] and "socket" in messages["pkg/AGENTS.md"]
    finally:
        server.close()


def test_a_link_to_a_device_is_not_a_dangling_link(tmp_path: Path) -> None:
    os.symlink("/dev/zero", tmp_path / "AGENTS.md")
    reader = LocalReader(str(tmp_path))
    assert "AGENTS.md" in list(reader.list_files())
    assert list(reader.dangling_links()) == []
    with pytest.raises(ReadError, match="outside the workspace"):
        reader.read_bytes(str(tmp_path / "AGENTS.md"))


def test_a_gitignore_that_is_a_fifo_or_has_a_bad_range(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    os.mkfifo(tmp_path / "a/.gitignore")
    (tmp_path / ".gitignore").write_text("[z-a]\n*.log\n")
    (tmp_path / "x.log").write_text("")
    (tmp_path / "a/AGENTS.md").write_text("a")
    files = set(within(10, lambda: list(LocalReader(str(tmp_path)).list_files())))
    assert "a/AGENTS.md" in files and "x.log" not in files


def test_globs_no_regex_accepts_are_findings() -> None:
    assert pattern_error("[z-a]") == "the glob is not valid: bad character range z-a"
    assert pattern_error("src/**/*.ts") is None
    assert CompiledGlobs(patterns=["[z-a]", "*.ts"]).match("a.ts")  # the bad one is dropped
    ws = make_ws(
        {
            ".claude/rules/r.md": '---\npaths: ["[z-a]", "src/{[b-a],x}/**"]\n---\nx',
            "src/x/a.ts": "",
        }
    )
    found = sorted(
        (f.code, f.span.start.col) for f in analysis.check(ws) if f.path.endswith("r.md")
    )
    assert found == [("invalid-glob", 8), ("invalid-glob", 17)]
    assert analysis.explain(ws, "src/x/a.ts").files == []


def test_literal_tail() -> None:
    assert literal_tail("packages/**/*-3.py") == "-3.py"
    assert literal_tail("**/*.ts") == ".ts"
    assert literal_tail("docs/guide.md") == ""  # no wildcard: may name a directory
    assert literal_tail("src/**") == "" and literal_tail("dir/") == ""
    assert literal_tail("*.{ts,tsx}") == ""


def test_import_of_the_root_is_a_directory_not_outside() -> None:
    ws = make_ws({"AGENTS.md": "@. and @./ and @sub/..\n", "sub/AGENTS.md": "@..\n"})
    found = sorted((f.path, f.code, f.message) for f in analysis.check(ws))
    assert [(p, c) for p, c, _ in found] == [("AGENTS.md", "broken-import")] * 3 + [
        ("sub/AGENTS.md", "broken-import")
    ]
    assert all("is a directory" in m for _, _, m in found)


def test_derived_values_built_on_a_dropped_one_are_dropped() -> None:
    cache = DerivedCache()
    cache.put("parent", 1, reads={"a.md"})
    cache.put("child", 2, reads={"b.md"}, after=["parent"])
    cache.put("grandchild", 3, reads=(), after=["child"])
    cache.put("other", 4, reads={"c.md"})
    cache.invalidate({"a.md"}, structural=False)
    assert [cache.get(k) for k in ("parent", "child", "grandchild", "other")] == [
        None,
        None,
        None,
        4,
    ]
    cache.put("orphan", 5, reads=(), after=["parent"])  # built on what is already gone
    assert cache.get("orphan") is None
