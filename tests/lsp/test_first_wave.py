"""The first wave of diagnostics (the walk's whole check, with nothing open) is converted in
the worker while it still owns the host (`lsp/opening.py::converted`): the loop's step that
takes the host only hands the diagnostics over, and they are the ones the loop would have
made. Where the findings or the text changed since, the loop converts them itself."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from tests.lsp.quiet_port import QuietPort, engine_with_folder

from rulemap.lsp import publishing
from rulemap.lsp.diagnostics import to_diagnostics

TREE = {
    ".git/HEAD": "ref: refs/heads/main\n",
    "AGENTS.md": "# root\n\nSee @docs/a.md and @docs/gone.md\n",
    "docs/a.md": "# a\n\nSee @b.md\n",
    "docs/b.md": "# b\n\nSee @a.md\n",
    ".claude/rules/x.md": '---\npaths: ["nowhere/**"]\n---\nX.\n',
}


def _write(root: Path) -> None:
    for key, text in TREE.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_text(text)


def test_the_first_wave_is_converted_in_the_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEMAP_NO_CACHE", "1")
    _write(tmp_path)
    on_loop: list[str] = []

    def recorded(snap: Any, key: str, findings: list[Any], encoding: Any) -> list[Any]:
        if findings and threading.current_thread() is threading.main_thread():
            on_loop.append(key)
        return to_diagnostics(snap, key, findings, encoding)

    monkeypatch.setattr(publishing, "to_diagnostics", recorded)

    async def run() -> tuple[dict[str, list[types.Diagnostic]], dict[str, list[Any]]]:
        port = QuietPort()
        engine, folder = await engine_with_folder(port, tmp_path, None)
        await engine.index(folder)
        host = folder.host
        assert host is not None and folder.checked_gen >= 0
        snap = host.snapshot()
        fresh = {uri: to_diagnostics(snap, key, host.findings.of(key), engine.encoding)
                 for key, (_, _, _, uri) in folder.published.items()}
        given = {uri: state.diagnostics for uri, state in engine.ledger.docs.items()}
        engine.close()
        return given, fresh

    given, fresh = asyncio.run(run())
    assert on_loop == []  # none converted on the loop
    codes = {str(d.code) for ds in given.values() for d in ds}
    assert {"broken-import", "import-cycle", "unmatched-glob"} <= codes
    assert {uri: ds for uri, ds in given.items() if ds} == {u: d for u, d in fresh.items() if d}


def test_a_file_changed_while_the_walk_is_checked_is_reported_as_it_is_now(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file changed on disk while the walk's check runs: the first wave may be the
    check's, but what the client ends with is what holds now."""
    import time

    from rulemap.host import opening

    monkeypatch.setenv("RULEMAP_NO_CACHE", "1")
    _write(tmp_path)
    whole_check = opening.whole_check
    began = threading.Event()

    def slow(snap: Any, stop: Any = None) -> Any:
        began.set()
        time.sleep(0.5)
        return whole_check(snap, stop)

    monkeypatch.setattr(opening, "whole_check", slow)

    async def run() -> list[str]:
        port = QuietPort()
        engine, folder = await engine_with_folder(port, tmp_path)
        indexing = asyncio.ensure_future(engine.index(folder))
        while not began.is_set():
            await asyncio.sleep(0.01)
        agents = tmp_path / "AGENTS.md"
        agents.write_text("# root\n\nSee @docs/a.md\n")  # the broken import gone
        engine.file_events([("changed", str(agents))])
        await indexing
        await engine.file_events_applied()
        state = engine.ledger.docs.get(agents.as_uri())
        engine.close()
        return [str(d.code) for d in (state.diagnostics if state else [])]

    assert "broken-import" not in asyncio.run(run())


def test_the_workers_diagnostics_are_taken_only_for_the_very_findings_and_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`_publish` takes a document's diagnostics from the worker's conversion only when its
    findings now are the same objects over the same text; otherwise it converts them."""
    from rulemap.lsp.opening import Converted

    monkeypatch.setenv("RULEMAP_NO_CACHE", "1")
    _write(tmp_path)
    marker = types.Diagnostic(range=types.Range(start=types.Position(line=0, character=0),
                                                end=types.Position(line=0, character=1)),
                              message="made in the worker")

    async def run() -> tuple[list[str], list[str]]:
        engine, folder = await engine_with_folder(QuietPort(), tmp_path, None)
        await engine.index(folder)
        host = folder.host
        assert host is not None
        key, uri = "AGENTS.md", (tmp_path / "AGENTS.md").as_uri()
        snap = host.snapshot()
        findings, doc = host.findings.of(key), snap.document(key)
        assert findings
        out = []
        for made_of in (list(findings), [*findings[1:], findings[0]] if len(findings) > 1
                        else [type(findings[0])(**{**vars(findings[0])})]):
            folder.published.pop(key, None)
            engine.ledger.docs.pop(uri, None)
            given = Converted({key: uri}, {key: (made_of, doc, [marker])})
            engine._publish(folder, None, given)
            out.append([d.message for d in engine.ledger.docs[uri].diagnostics])
        engine.close()
        return out[0], out[1]

    same, other = asyncio.run(run())
    assert same == ["made in the worker"]  # the very findings: taken as made
    assert "made in the worker" not in other and other  # others: converted on the loop


def test_a_pull_client_is_asked_to_refresh_for_a_closed_documents_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pull client pulls the document it edits; a closed one's new diagnostics reach it
    only through a refresh, even when they are the only change."""
    monkeypatch.setenv("RULEMAP_NO_CACHE", "1")
    _write(tmp_path)

    class _Counting(QuietPort):
        refreshes = 0

        def refresh_diagnostics(self) -> None:
            _Counting.refreshes += 1

    async def run() -> tuple[int, int]:
        engine, folder = await engine_with_folder(_Counting(), tmp_path, None, pull=True)
        engine.ledger.pull, engine.ledger.refresh_support = True, True
        await engine.index(folder)
        host = folder.host
        assert host is not None
        await asyncio.sleep(0.3)  # any refresh of the indexing sent
        counts = []
        for key, is_open in (("AGENTS.md", True), (".claude/rules/x.md", False)):
            uri = (tmp_path / key).as_uri()
            if is_open:
                engine.open_docs[uri] = (TREE[key], 1)
            before = _Counting.refreshes
            engine.ledger.docs.pop(uri, None)  # its diagnostics change
            folder.published.pop(key, None)
            engine._publish(folder, {key})
            await asyncio.sleep(0.3)
            counts.append(_Counting.refreshes - before)
        engine.close()
        return counts[0], counts[1]

    edited_open, changed_closed = asyncio.run(run())
    assert edited_open == 0
    assert changed_closed == 1
