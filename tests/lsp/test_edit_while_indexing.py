"""An edit made while a folder is first indexed is answered at once (`Folder.walk_stop`): the
check that follows the walk stops at its next step and hands the host to the loop, which
checks the edited document; the whole check then runs in the worker's copy. Before, the edit
waited for the walk's whole check (2 s on 2,000 rules, benchmarks/README.md).

The walk's check is made slow here (it would take `SLOW_S`), so an edit that waited for it
could not be published in time."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from tests.lsp.quiet_port import QuietPort, engine_with_folder

from rulemap.host import opening
from rulemap.lsp.state import Engine

SLOW_S = 20.0
ANSWERED_S = 5.0  # well under SLOW_S, well over a slow machine's walk of four files

TREE = {
    "AGENTS.md": "# root\n\nSee @docs/a.md\n\nShared paragraph that two files repeat word for "
                 "word, long enough to count as a copy of the other one.\n",
    "CLAUDE.md": "# claude\n\nShared paragraph that two files repeat word for word, long "
                 "enough to count as a copy of the other one.\n",
    "docs/a.md": "# a\n\nSee @docs/missing-in-a.md\n",
}


class _Port(QuietPort):
    def __init__(self) -> None:
        super().__init__()
        self.times: list[tuple[float, str, list[str]]] = []

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        self.times.append((time.monotonic(), uri, [str(d.code) for d in diagnostics]))


def _write(root: Path) -> None:
    (root / ".git").mkdir()
    for key, text in TREE.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_text(text)


@pytest.fixture
def slow_walk_check(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The walk's whole check takes SLOW_S unless stopped; says when it began and whether it
    was stopped."""
    seen: dict[str, Any] = {"began": threading.Event(), "stopped": False}
    real = opening.whole_check

    def slow(snap: Any, stop: Any = None) -> Any:
        seen["began"].set()
        ends = time.monotonic() + SLOW_S
        while time.monotonic() < ends:
            if stop is not None and stop.cancelled:
                seen["stopped"] = True
            if stop is not None:
                stop.check()
            time.sleep(0.01)
        return real(snap, stop)

    monkeypatch.setattr(opening, "whole_check", slow)
    return seen


async def _edit_while_indexing(root: Path, key: str, text: str,
                               seen: dict[str, Any]) -> tuple[Engine, _Port, float]:
    port = _Port()
    engine, folder = await engine_with_folder(port, root)
    indexing = asyncio.ensure_future(engine.index(folder))
    while not seen["began"].is_set():
        await asyncio.sleep(0.01)
    assert folder.indexing and folder.host is None  # the walk's check is running
    sent = time.monotonic()
    engine.did_open((root / key).as_uri(), text, 1)
    await asyncio.wait_for(indexing, ANSWERED_S)
    return engine, port, sent


async def _until(condition: Any, seconds: float) -> None:
    ends = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < ends, "timed out"
        await asyncio.sleep(0.02)


def test_an_edit_while_indexing_stops_the_walks_check(
        tmp_path: Path, slow_walk_check: dict[str, Any]) -> None:
    _write(tmp_path)
    edited = TREE["AGENTS.md"] + "\nSee @docs/gone.md\n"

    async def run() -> None:
        engine, port, sent = await _edit_while_indexing(tmp_path, "AGENTS.md", edited,
                                                        slow_walk_check)
        uri = (tmp_path / "AGENTS.md").as_uri()
        folder = next(iter(engine.folders.values()))
        await _until(lambda: any(u == uri and "broken-import" in codes
                                 for _, u, codes in port.times), ANSWERED_S)
        answered = next(t for t, u, codes in port.times if u == uri and "broken-import" in codes)
        assert answered - sent < ANSWERED_S
        assert slow_walk_check["stopped"]
        # the whole check then runs in the worker's copy, of the edited text: its graph-wide
        # finding (the paragraph both files repeat) is published too
        await _until(lambda: folder.checked_gen >= 0 and not folder.check_running, 30)
        codes = {c for _, u, cs in port.times for c in cs}
        assert "duplicate-text" in codes
        assert "broken-import" in {c for t, u, cs in port.times[-10:] if u == uri for c in cs}
        engine.close()

    asyncio.run(run())


def test_an_imported_document_opened_while_indexing_is_checked_once_parsed(
        tmp_path: Path, slow_walk_check: dict[str, Any]) -> None:
    """docs/a.md is linted only because AGENTS.md imports it: which documents are linted is
    decided once the loop's host is parsed (the warm-up), not by parsing them all at once on
    the loop; its own finding then comes without waiting for the whole check."""
    _write(tmp_path)
    text = TREE["docs/a.md"]

    async def run() -> None:
        engine, port, _sent = await _edit_while_indexing(tmp_path, "docs/a.md", text,
                                                         slow_walk_check)
        folder = next(iter(engine.folders.values()))
        uri = (tmp_path / "docs/a.md").as_uri()
        await _until(lambda: any(u == uri and "broken-import" in codes
                                 for _, u, codes in port.times), ANSWERED_S)
        assert not folder.warming
        engine.close()

    asyncio.run(run())


def test_nothing_edited_the_walks_check_runs_to_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an edit the walk's whole check is the first one, nothing stops it, and the
    worker's copy does not check the same folder again once built."""
    from rulemap.lsp import publishing

    _write(tmp_path)
    copies_checked: list[int] = []
    whole_check = publishing._whole_check

    def counted(snap: Any) -> Any:
        copies_checked.append(1)
        return whole_check(snap)

    monkeypatch.setattr(publishing, "_whole_check", counted)

    async def run() -> None:
        port = _Port()
        engine, folder = await engine_with_folder(port, tmp_path, None)
        await engine.index(folder)
        assert folder.walk_stop is None and not folder.warming
        assert folder.checked_gen >= 0  # the walk's check was the whole check
        assert "duplicate-text" in {c for _, _, cs in port.times for c in cs}
        assert folder.host is not None and folder.host.has_replica
        assert copies_checked == []
        engine.close()

    asyncio.run(run())


def test_while_the_host_is_parsed_only_documents_linted_by_kind_are_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the loop's host is warmed, the local check never asks which documents are
    linted (that parses every one, on the loop): an instruction file is checked at once, an
    imported document waits in the queue for the warm-up's end."""
    from rulemap.host.snapshot import Snapshot

    _write(tmp_path)

    async def run() -> None:
        port = _Port()
        engine, folder = await engine_with_folder(port, tmp_path, None)
        await engine.index(folder)
        host = folder.host
        assert host is not None
        real = Snapshot.lint_documents

        def parses_everything(self: Snapshot) -> list[str]:
            raise AssertionError("which documents are linted was asked while warming")

        monkeypatch.setattr(Snapshot, "lint_documents", parses_everything)
        folder.warming, folder.linted_at = True, -1
        folder.local_queue = {"AGENTS.md", "docs/a.md"}
        host.findings.local.clear()
        engine._rest_local(folder, host, folder.epoch)
        assert set(host.findings.local) == {"AGENTS.md"}  # checked now
        assert folder.local_queue == {"docs/a.md"}
        monkeypatch.setattr(Snapshot, "lint_documents", real)
        folder.warming = False
        engine._rest_local(folder, host, folder.epoch)
        assert not folder.local_queue
        assert "docs/a.md" in host.findings.local  # checked once the warm-up is done
        engine.close()

    asyncio.run(run())
