"""A snapshot's derived values, pickled a part per kind (server/rulemap/host/cache/
pickled_workspace.py): a resumed workspace unpickles a part when one of its values is first
asked for, and a part that cannot be unpickled is worked out again — the findings are the
same either way."""

from __future__ import annotations

import io
from pathlib import Path

from tests.core.test_check_cache import tree  # noqa: F401

from rulemap.cli.commands import open_host
from rulemap.host.analysis_host import AnalysisHost
from rulemap.host.cache import pickled_workspace as carried
from rulemap.host.snapshot import workspace_of
from rulemap.readers.recording import Recording
from rulemap.readers.recording_reader import RecordingReader
from rulemap.workspace import Workspace


def _checked(root: Path) -> tuple[Workspace, list[str]]:
    recording = Recording()

    def wrap(factory: object, root: str) -> object:
        return lambda root, allowed=(): RecordingReader(root, recording, allowed)

    snap = open_host(str(root), wrap=wrap).snapshot()  # type: ignore[arg-type]
    found = [repr(f) for f in snap.findings()]
    return workspace_of(snap), found


def _findings(ws: Workspace) -> list[str]:
    return [repr(f) for f in AnalysisHost(ws).snapshot().findings()]


def _carried(ws: Workspace) -> Workspace:
    loaded = carried.unpickled(io.BytesIO(carried.pickled(ws)))
    assert loaded is not None
    return loaded[0]


def test_parts_are_unpickled_only_when_asked(tree: Path) -> None:  # noqa: F811
    ws, found = _checked(tree)
    assert len(ws.derived) > 0
    back = _carried(ws)
    blobs = back.derived._blobs  # type: ignore[attr-defined]
    assert blobs and all(blob is not None for blob in blobs)  # nothing unpickled yet
    key = next(iter(ws.derived._values))
    assert back.derived.get(key) is not None or ws.derived.get(key) is None
    assert sum(blob is None for blob in blobs) >= 1
    assert sum(blob is None for blob in blobs) < len(blobs) or len(blobs) == 1
    assert _findings(back) == found


def test_a_part_that_fails_to_load_is_worked_out_again(tree: Path) -> None:  # noqa: F811
    ws, found = _checked(tree)
    back = _carried(ws)
    blobs = back.derived._blobs  # type: ignore[attr-defined]
    blobs[:] = [b"\x80\x05garbage" for _ in blobs]
    assert _findings(back) == found
    assert len(back.derived) > 0  # worked out again, and kept


def test_a_damaged_payload_is_no_workspace(tree: Path) -> None:  # noqa: F811
    ws, _ = _checked(tree)
    data = carried.pickled(ws)
    assert carried.unpickled(io.BytesIO(data[:-40])) is None


def test_an_edit_drops_from_a_carried_cache_what_it_drops_from_the_original(
    tree: Path,  # noqa: F811
) -> None:
    """The carried cache holds stand-ins for the values, with the original's index of what
    each read: an edit finds the same entries to drop (an empty index kept stale findings
    in a resumed check)."""
    ws, _ = _checked(tree)
    back = _carried(ws)
    read = next(reads for reads in ws.derived.read_sets() if reads and type(reads) is tuple)
    changed = {read[0]}
    ws.derived.invalidate(changed, structural=False)
    back.derived.invalidate(changed, structural=False)
    assert set(back.derived._values) == set(ws.derived._values)
    assert len(back.derived) < len(_carried(_checked(tree)[0]).derived)
