"""A workspace looked at once (`Workspace.look_once`, `derived.OneLookCache`) and the record
written a section at a time (`Recording.json_pieces`): the same answers, less kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulemap import analysis
from rulemap.config import ConfigError
from rulemap.derived import DerivedCache, KeyFamily, OneLookCache
from rulemap.model import EMPTY
from rulemap.readers import recording as recording_module
from rulemap.readers.check_store import decode_paths, still_valid
from rulemap.readers.local import LocalReader
from rulemap.readers.recording import Recording
from rulemap.readers.recording_reader import recorded_by

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"
_FAMILY = KeyFamily[object]("test-one-look")


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.one_of(
    st.none(), st.integers(), st.just([]), st.lists(st.integers(), min_size=1))), max_size=20))
def test_a_one_look_cache_answers_as_the_full_one(puts: list[tuple[str, object]]) -> None:
    full, one = DerivedCache(), OneLookCache()
    for name, value in puts:
        key = _FAMILY.key(name)
        assert one.put(key, value, reads=[f"{name}.md"]) == full.put(key, value, reads=[name])
        for probe in "abcde":
            probe_key = _FAMILY.key(probe)
            assert one.get(probe_key, "none") == full.get(probe_key, "none")
    assert len(one) == len(full)
    last = dict(puts)
    assert all(one.get(_FAMILY.key(name)) is EMPTY for name, value in last.items() if value == [])
    carried = OneLookCache.of(full)
    assert all(carried.get(_FAMILY.key(n), 0) == full.get(_FAMILY.key(n), 0) for n in "abcde")


def test_a_one_look_cache_keeps_no_reads_and_drops_all_on_a_change() -> None:
    one = OneLookCache()
    one.put(_FAMILY.key("a"), 1, reads=["a.md"])
    one.put(_FAMILY.key("b"), 2, reads=["b.md"], after=[_FAMILY.key("a")])
    one.invalidate({"unrelated.md"}, structural=False)
    assert one.get(_FAMILY.key("b")) is None and len(one) == 0
    with pytest.raises(RuntimeError, match="cannot be resumed"):
        list(one.read_sets())


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_a_workspace_looked_at_once_finds_what_a_kept_one_finds(
    case: str, tmp_path: Path
) -> None:
    root = tmp_path / case
    shutil.copytree(CASES / case / "workspace", root, symlinks=True)
    reports: list[object] = []
    for once in (False, True):
        try:
            ws = analysis.open_workspace(str(root), LocalReader(str(root), one_shot=True))
        except ConfigError as exc:  # a case about a refused configuration: refused alike
            reports.append(("refused", str(exc)))
            continue
        if once:
            ws.look_once()
        assert isinstance(ws.derived, OneLookCache) == once
        reports.append(analysis.check(ws))
    assert reports[0] == reports[1]


def _recorded(tmp_path: Path) -> Recording:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "a" / "b").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Root\n@a/b/notes.md\n")
    (root / "a" / "b" / "notes.md").write_text("notes\n")
    (root / "a" / "b" / "x.ts").write_text("x\n")
    (tmp_path / "outside.md").write_text("out\n")
    recording = Recording()
    reader = recorded_by(recording)(str(root))
    list(reader.list_files())
    reader.read_bytes(str(root / "AGENTS.md"))
    reader.read_bytes(str(root / "a" / "b" / "notes.md"))
    reader.exists(str(root / "a" / "b" / "CLAUDE.md"))
    reader.exists(str(tmp_path / "outside.md"))
    reader.is_dir(str(root / "a"))
    return recording


def test_the_record_in_pieces_is_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recording_module, "_ROWS_PER_PIECE", 3)  # the table in slices
    recording = _recorded(tmp_path)
    pieces = list(recording.json_pieces())
    assert len(pieces) > 9
    record = json.loads("".join(pieces))
    assert record == json.loads(json.dumps(recording.to_json()))
    assert still_valid(record, recording.start_ns)
    paths = decode_paths(record["paths"])
    assert str(tmp_path / "repo" / "a" / "b" / "notes.md") in {
        paths[at] for at, _, _ in record["files"]}
    assert str(tmp_path / "outside.md") in {paths[at] for at, _ in record["exists"]}
    (tmp_path / "repo" / "a" / "b" / "notes.md").write_text("changed, longer\n")
    assert not still_valid(record, recording.start_ns)


def test_a_check_looks_once_unless_it_leaves_a_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`rulemap check` keeps no read sets when nothing will resume from its workspace; a
    repeated check, which leaves a snapshot to resume from, keeps them."""
    from rulemap.cli import check_cache
    from rulemap.cli.main import main

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Root\n@missing.md\n")
    kinds: list[type] = []
    checked = analysis.check

    def noting(ws: analysis.Workspace) -> list[object]:
        kinds.append(type(ws.derived))
        return checked(ws)  # type: ignore[return-value]

    monkeypatch.setattr(analysis, "check", noting)
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["check", str(root), "--no-cache"]) == 1
    cache = check_cache.lookup(["check", str(root)])
    assert cache is not None
    assert main(["check", str(root)], cache=cache) == 1  # the first check: recorded
    assert kinds == [OneLookCache, OneLookCache]
    (root / "AGENTS.md").write_text("# Root, edited\n@missing.md\n")
    cache = check_cache.lookup(["check", str(root)])
    # the same check again, its entry stale: it leaves a snapshot
    assert cache is not None and cache.repeated
    assert main(["check", str(root)], cache=cache) == 1
    assert kinds[-1] is DerivedCache
    capsys.readouterr()
