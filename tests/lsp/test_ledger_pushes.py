"""A wave of pushed diagnostics is sent a slice at a time (`lsp/ledger.py`): a message that
arrives meanwhile is read between slices, an open document's push is never held, and what a
held push sends is the URI's diagnostics when it goes out."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types

from rulemap.lsp import ledger as ledger_module
from rulemap.lsp.ledger import PUSHES_PER_TURN, DiagnosticsLedger


class _Port:
    def __init__(self) -> None:
        self.sent: list[tuple[str, list[types.Diagnostic], int | None]] = []

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        self.sent.append((uri, diagnostics, version))


def _diagnostic(message: str) -> types.Diagnostic:
    return types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 1)),
                            message=message)


def _ledger() -> tuple[DiagnosticsLedger, _Port]:
    port = _Port()
    return DiagnosticsLedger(port, asyncio.get_running_loop()), port  # type: ignore[arg-type]


async def _turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


@pytest.fixture
def no_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every turn's share is its first `PUSHES_PER_TURN` pushes (no time left over)."""
    monkeypatch.setattr(ledger_module, "PUSH_SLICE_S", 0.0)


def test_a_wave_is_sent_a_slice_at_a_time_and_a_message_is_read_between(
    no_time_budget: Any,
) -> None:
    async def run() -> None:
        ledger, port = _ledger()
        uris = [f"file:///w/d{i:03}.md" for i in range(200)]
        for i, uri in enumerate(uris):
            assert ledger.set(uri, [_diagnostic(f"m{i}")], None, is_open=False)
        assert [u for u, _, _ in port.sent] == uris[:PUSHES_PER_TURN]
        assert ledger.held == 200 - PUSHES_PER_TURN
        # a message read on the next turn (an edit, a hover) runs before the wave is out
        seen_at: list[int] = []
        asyncio.get_running_loop().call_soon(lambda: seen_at.append(len(port.sent)))
        await _turns(400)
        assert seen_at and seen_at[0] < len(uris)
        assert [u for u, _, _ in port.sent] == uris  # each once, in order
        assert ledger.held == 0

    asyncio.run(run())


def test_an_open_document_is_pushed_at_once_and_a_held_push_sends_the_latest(
    no_time_budget: Any,
) -> None:
    async def run() -> None:
        ledger, port = _ledger()
        for i in range(PUSHES_PER_TURN + 10):
            ledger.set(f"file:///w/d{i:03}.md", [_diagnostic("old")], None, is_open=False)
        held = f"file:///w/d{PUSHES_PER_TURN + 3:03}.md"
        gone = f"file:///w/d{PUSHES_PER_TURN + 4:03}.md"
        before = len(port.sent)
        ledger.set("file:///w/open.md", [_diagnostic("typed")], 7, is_open=True)
        assert port.sent[before:] == [("file:///w/open.md", [_diagnostic("typed")], 7)]
        ledger.set(held, [_diagnostic("new")], 3, is_open=False)
        ledger.forget(gone)
        await _turns(50)
        sent = {uri: (diagnostics, version) for uri, diagnostics, version in port.sent}
        assert sent[held] == ([_diagnostic("new")], 3)
        assert gone not in sent
        assert [u for u, _, _ in port.sent].count(held) == 1

    asyncio.run(run())


def test_a_few_pushes_go_out_at_once() -> None:
    """Below a turn's share nothing waits: what a caller pushes is sent when `set` returns."""

    async def run() -> None:
        ledger, port = _ledger()
        for i in range(PUSHES_PER_TURN):
            ledger.set(f"file:///w/d{i}.md", [_diagnostic("x")], None, is_open=False)
        assert len(port.sent) == PUSHES_PER_TURN and ledger.held == 0

    asyncio.run(run())


def test_a_pull_client_is_never_pushed_to() -> None:
    async def run() -> None:
        ledger, port = _ledger()
        ledger.pull = True
        for i in range(100):
            ledger.set(f"file:///w/d{i}.md", [_diagnostic("x")], None, is_open=False)
        await _turns(5)
        assert port.sent == [] and ledger.held == 0

    asyncio.run(run())
