"""Values that many objects share instead of each holding a copy, which is what keeps a check
of the 10x benchmark trees under 150 MB (benchmarks/README.md, "Memory"): the shared empty
list, the derived cache's one-key dependents and one-file read sets, a load link's containers
made on first use, one string per walked directory, and the `json` report written in pieces.
Each test fails if its sharing is undone or breaks what the value means."""

from __future__ import annotations

import io
import json
import pickle
from pathlib import Path

import pytest

from rulemap.analysis import new_workspace
from rulemap.cli.formats import _PIECE, FORMATTERS, write_report
from rulemap.derived import DerivedCache, KeyFamily
from rulemap.host import AnalysisHost
from rulemap.host.cache.check_results import CheckCache, cached_report, store
from rulemap.host.cache.report_spool import Spool
from rulemap.model import EMPTY, Finding, LoadedFile, Skipped, Span
from rulemap.profiles.links import Linked
from rulemap.readers.local import LocalReader
from rulemap.readers.memory import MemoryReader
from rulemap.readers.recording import Recording
from rulemap.readers.recording_reader import recorded_by

A: KeyFamily[list[str]] = KeyFamily("test-shared-a")
B: KeyFamily[int] = KeyFamily("test-shared-b")


def test_findings_share_one_empty_list_that_refuses_changes() -> None:
    first = Finding("a.md", Span.at(0, 0), "error", "x", "one")
    second = Finding("b.md", Span.at(1, 0), "error", "x", "two")
    assert first.fixes is second.related is second.tags is EMPTY
    assert EMPTY == [] and not EMPTY and list(EMPTY) == []
    for change in (lambda: EMPTY.append(1), lambda: EMPTY.extend([1]),
                   lambda: EMPTY.insert(0, 1), EMPTY.clear, EMPTY.pop, EMPTY.sort):
        with pytest.raises(TypeError):
            change()
    with pytest.raises(TypeError):
        EMPTY[0:0] = [1]
    with pytest.raises(TypeError):
        first.fixes += []
    assert EMPTY == [] and first.fixes is EMPTY
    loaded = pickle.loads(pickle.dumps([first, second]))
    assert loaded == [first, second] and loaded[0].fixes is EMPTY and loaded[1].tags is EMPTY


def test_a_broken_import_gets_a_fix_of_its_own() -> None:
    ws = new_workspace(MemoryReader("/w", {"AGENTS.md": "See @docs/gone.md\n"}))
    from rulemap import analysis

    broken = [f for f in analysis.check(ws) if f.code == "broken-import"]
    assert broken and all(f.fixes and f.fixes is not EMPTY for f in broken)
    assert Finding("c.md", Span.at(0, 0), "error", "x", "m").fixes == []


def test_derived_values_share_empty_lists_and_one_file_read_sets() -> None:
    cache = DerivedCache()
    assert cache.put(A.key("a.md"), [], reads=["a.md"]) is EMPTY
    cache.put(B.key("a.md"), 1, reads={"a.md"})
    cache.put(B.key("b.md"), 2, reads=("a.md", "b.md"))
    reads = list(cache.read_sets())
    assert reads[0] == ("a.md",) and reads[0] is reads[1]
    assert cache.get(A.key("a.md")) == [] and cache.get(B.key("a.md")) == 1
    cache.invalidate({"a.md"}, structural=False)
    assert len(cache) == 0


def test_a_parent_with_one_then_many_dependents_drops_them_all() -> None:
    cache = DerivedCache()
    parent, child, other, grandchild = (B.key(n) for n in ("p", "c", "o", "g"))
    cache.put(parent, 0, reads=["p.md"])
    cache.put(child, 1, reads=["c.md"], after=[parent])
    cache.put(child, 1, reads=["c.md"], after=[parent])  # the same one again: still one
    cache.put(grandchild, 3, reads=["g.md"], after=[child])
    cache.invalidate({"unrelated.md"}, structural=False)
    assert len(cache) == 3
    cache.invalidate({"p.md"}, structural=False)
    assert len(cache) == 0
    for changed in ({"p.md"}, {"c.md"}):
        cache.put(parent, 0, reads=["p.md"])
        cache.put(child, 1, reads=["c.md"], after=[parent])
        cache.put(other, 2, reads=["o.md"], after=[parent])
        cache.put(grandchild, 3, reads=["g.md"], after=[child])
        cache.invalidate(changed, structural=False)
        if changed == {"p.md"}:
            assert len(cache) == 0  # both children of the parent, and the grandchild
        else:
            assert [cache.get(k) for k in (parent, child, other, grandchild)] == [0, None, 2, None]
    cache.put(parent, 0, reads=None)
    cache.put(child, 1, reads=["c.md"], after=[parent])
    cache.invalidate(set(), structural=True)
    assert len(cache) == 0


class _Link(Linked["_Link"]):
    pass


def test_a_link_makes_its_containers_when_it_first_adds() -> None:
    parent = _Link(None)
    child, empty = _Link(parent), _Link(parent)
    assert child.own_files is EMPTY and child.own_skipped is EMPTY and not child.own_reads
    parent.add_file(LoadedFile("AGENTS.md", "project", None, 0, 5), "/w/AGENTS.md")
    parent.add_reads("AGENTS.md", "docs/a.md")
    child.add_skip(Skipped("x.md", "unreadable", "unreadable-file"))
    child.add_reads()
    child.add_reads("x.md")
    assert [f.path for f in child.files] == ["AGENTS.md"] and len(child.skipped) == 1
    assert child.first_loaded("/w/AGENTS.md") == "AGENTS.md"
    assert empty.first_loaded("/w/other.md") is None
    assert parent.own_reads == {"AGENTS.md", "docs/a.md"} and child.own_reads == {"x.md"}
    assert empty.own_files is EMPTY and empty.own_skipped is EMPTY and not empty.own_reads
    assert parent.own_skipped is EMPTY and child.own_files is EMPTY


def test_the_walk_keeps_one_string_per_directory(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    for directory in (tmp_path / "a", tmp_path / "a" / "b", deep):
        (directory / "f.ts").write_text("x\n")
    reader = LocalReader(str(tmp_path), one_shot=True)
    files = sorted(reader.list_files())
    assert files == ["a/b/c/f.ts", "a/b/f.ts", "a/f.ts"]
    plain = {id(p) for p in reader._plain}
    listed = [key for key in reader._listed or {} if key]
    assert sorted(listed) == ["a", "a/b", "a/b/c"]
    assert all(id(key) in plain for key in listed)


def _findings(count: int) -> list[Finding]:
    return [Finding("AGENTS.md", Span.at(0, 0), "warning", "budget-overflow", f"over {i} " * 9)
            for i in range(count)]


def test_the_json_report_is_written_in_bounded_pieces() -> None:
    snap = AnalysisHost(new_workspace(MemoryReader("/w", {"AGENTS.md": "# Project\n"}))).snapshot()

    class Pieces(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.sizes: list[int] = []

        def write(self, text: str) -> int:
            self.sizes.append(len(text))
            return super().write(text)

    for count in (0, 1, 3_000):
        out = Pieces()
        write_report(snap, _findings(count), "json", out)
        assert out.getvalue() == FORMATTERS["json"](snap, _findings(count))
        assert len(json.loads(out.getvalue())["diagnostics"]) == count
        assert max(out.sizes) < 2 * _PIECE  # a piece ends at the line past _PIECE
    assert len(out.sizes) > 5  # 3,000 findings: many pieces, not one string
    text = Pieces()
    write_report(snap, _findings(2), "text", text)
    assert text.getvalue() == FORMATTERS["text"](snap, _findings(2))


def test_a_stored_report_comes_back_byte_for_byte(tmp_path: Path) -> None:
    """The entry keeps the report as UTF-8 after its header line: any character, a lone
    surrogate (a stream's error handler decides how it is printed) and newlines included."""
    cache = CheckCache(str(tmp_path / "cache"), {"test": 1})
    pieces = ['{"a": "ü\\n"}\n', "line\udcff two\n", "", "end" * 500_000]
    spool = Spool()
    for piece in pieces:
        spool.write(piece)
    assert not list(Spool().chunks()) and spool.size == len("".join(pieces).encode(
        "utf-8", "surrogatepass"))
    assert len(list(spool.chunks())) > 1  # read back a megabyte at a time
    store(cache, str(tmp_path / "repo"), spool.chunks(), spool.size, 1, Recording())
    spool.close()
    assert cached_report(cache) == ("".join(pieces), 1)


def test_a_recording_keeps_the_walks_directories_by_its_own_strings(tmp_path: Path) -> None:
    """The record of a walk keys the directories below its root by their workspace keys, the
    walk's own strings, and writes the same paths as before (each decoded back whole)."""
    from rulemap.readers import check_store

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "a" / "b" / "AGENTS.md").write_text("# B\n")
    (root / "a" / "b" / "c" / "x.ts").write_text("x\n")
    recording = Recording()
    reader = recorded_by(recording)(str(root))
    assert sorted(reader.list_files()) == ["a/b/AGENTS.md", "a/b/c/x.ts"]
    assert not recording.dirs and sorted(recording.root_dirs) == ["", "a", "a/b", "a/b/c"]
    plain = {id(p) for p in reader._plain}
    assert all(id(key) in plain for key in recording.root_dirs if key)
    assert sorted(recording.all_dirs()) == sorted(
        str(d) for d in (root, root / "a", root / "a" / "b", root / "a" / "b" / "c"))
    record = recording.to_json()
    paths = check_store.decode_paths(record["paths"])
    assert sorted(paths[at] for at, _, _ in record["dirs"]) == sorted(recording.all_dirs())
    assert check_store.still_valid(record, recording.start_ns)
    # a probe below a listed directory is answered by its listing, as by absolute path
    assert recording.implied_missing(str(root / "a" / "b" / ".git"))
    assert not recording.implied_missing(str(root / "a" / "b" / "AGENTS.md"))
    assert not recording.implied_missing(str(root))
    assert not recording.implied_missing(str(tmp_path / "elsewhere" / ".git"))
    recording.set_dir(str(root / "a"), (None, "!"))
    recording.set_dir(str(tmp_path), (None, "!"))
    assert recording.root_dirs["a"] == (None, "!") and str(tmp_path) in recording.dirs


@pytest.mark.parametrize("root", ["/w", "/w/deep/er", "/"])
def test_the_path_table_writes_paths_below_its_root_as_any_other(root: str) -> None:
    from rulemap.readers import check_store

    inside = ["" if root == "/" else root, f"{root.rstrip('/')}/a/b", f"{root.rstrip('/')}/a",
              f"{root.rstrip('/')}/a/b/c.md", f"{root.rstrip('/')}/z"]
    outside = ["/elsewhere/x", "relative/p", "/w2/q", "/", "//odd"]
    paths = [p for p in inside if p] + outside
    table = check_store.PathTable(root)
    rows = [table.index(p) for p in paths]
    if root != "/":
        rows += [table.index_below("a/b"), table.index_below("")]
        paths += [f"{root}/a/b", root]
    decoded = check_store.decode_paths(json.loads(json.dumps(table.rows)))
    assert [decoded[r] for r in rows] == paths


class _CountingReader(MemoryReader):
    def __init__(self, root: str, files: dict[str, str | bytes]) -> None:
        super().__init__(root, files)
        self.reads: dict[str, int] = {}

    def read_bytes(self, path: str) -> bytes:
        self.reads[path] = self.reads.get(path, 0) + 1
        return super().read_bytes(path)


_BYTES_CASES: dict[str, bytes] = {
    "AGENTS.md": b"# Root\n\nSee @docs/a.md\n",
    "docs/a.md": b"# A\r\n\r\nCRLF lines\r\n",
    "pkg/AGENTS.md": "\ufeff# Paket\n\nGr\u00fc\u00dfe \u2014 \U0001f600 \u00e9t\u00e9\n".encode(),
    "bad/AGENTS.md": b"# Bad\n\nnot \xff UTF-8\n",
    "pkg/src/x.ts": b"export {}\n",
}


def test_codex_counts_the_bytes_a_document_was_parsed_from_without_reading_again() -> None:
    """Codex's byte budget reads a parsed document's bytes back from its text (a byte-order
    mark, CRLF and characters of every width included); a file that is no valid UTF-8
    (unreadable as a document) is read for its bytes as before. A whole check with Codex
    reads each file once."""
    from rulemap import analysis
    from rulemap.profiles import PROFILES
    from rulemap.profiles.codex.files import file_bytes

    reader = _CountingReader("/w", dict(_BYTES_CASES))
    ws = new_workspace(reader, profiles=(PROFILES["codex"], PROFILES["cogitator"]))
    assert ws.document_bytes("AGENTS.md") is None  # not parsed yet
    analysis.check(ws)
    # the one file that is no document is read again, for its bytes
    assert {p: n for p, n in reader.reads.items() if n > 1} == {"/w/bad/AGENTS.md": 2}
    for key, raw in _BYTES_CASES.items():
        if key.endswith(".md"):
            assert file_bytes(ws, key) == raw, key
    assert ws.document_bytes("pkg/AGENTS.md") == _BYTES_CASES["pkg/AGENTS.md"]
    assert ws.document("pkg/AGENTS.md").bom and not ws.document("AGENTS.md").bom
    assert ws.document_bytes("bad/AGENTS.md") is None  # unreadable: read again for its bytes
    assert isinstance(file_bytes(ws, "missing/AGENTS.md"), str)


@pytest.mark.parametrize("cwd", ["", "a", "a/b"])
@pytest.mark.parametrize("target_dir", ["", "a", "a/b", "a/b/c", "a/bc/d", "x/y", "ab"])
def test_the_deepest_nested_directory_is_the_last_of_them_all(cwd: str, target_dir: str) -> None:
    from rulemap.profiles.claude_code.loader import deepest_nested, nested_dirs

    every = nested_dirs(cwd, target_dir)
    assert deepest_nested(cwd, target_dir) == (every[-1] if every else None)


def test_a_first_checks_record_shares_its_strings_and_numbers(tmp_path: Path) -> None:
    """What a first check's record keeps for the cache is shared where it can be (the peak of
    a first check 400 levels deep is its store): a document is read by its identity's own
    string, which the record keys the read by; the listings' names and the path table's
    names are interned; a signature's ctime is its mtime's int when they are equal, and its
    mode one int for all."""
    import os
    import sys

    from rulemap import analysis
    from rulemap.readers import check_store

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for pkg in ("a", "b"):
        (root / "pkg" / pkg).mkdir(parents=True)
        (root / "pkg" / pkg / "AGENTS.md").write_text(f"# {pkg}\n")
    recording = Recording()
    ws = analysis.open_workspace(str(root), recorded_by(recording)(str(root)))
    analysis.check(ws)
    path = str(root / "pkg" / "a" / "AGENTS.md")
    recorded = next(p for p in recording.files if p == path)
    assert recorded is ws.identity("pkg/a/AGENTS.md")
    names = [n for listed in recording.root_listed.values() for n in listed]
    assert names.count("AGENTS.md") == 2 and all(n is sys.intern(n) for n in names)
    table = check_store.PathTable(str(root))
    rows = [table.index(p) for p in (path, str(root / "pkg" / "b" / "AGENTS.md"))]
    assert table.rows[rows[0]][1] is table.rows[rows[1]][1]
    assert check_store.decode_paths(json.loads(json.dumps(table.rows)))[rows[0]] == path
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    sig = check_store.signature(path)
    other = check_store.signature(str(root / "pkg" / "b" / "AGENTS.md"))
    assert sig is not None and other is not None
    info = os.stat(path)
    assert sig == [info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino, info.st_mode]
    assert sig[4] is other[4]  # one mode
    if other[0] == other[1]:
        assert other[1] is other[0]  # one int for an equal ctime
