"""What the client was last given for each URI: diagnostics, result ids, push or pull.

The Engine decides *what* a document's diagnostics are; the ledger remembers what was sent,
pushes only what changed (push clients), answers pull requests with "unchanged" when the result
id still holds, long-polls `workspace/diagnostic`, and asks pull clients to refresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from rulemap.lsp.folders import Port

LONG_POLL_S = 60  # a workspace/diagnostic request with nothing new waits at most this long
# A push client is sent a wave of diagnostics (a folder's first, 1,292 documents on the deep
# shape: ~0.3 s of JSON) a slice at a time: past this many pushes and this long in one turn of
# the loop, the rest wait for the next turns, so an edit or a hover is read in between. An
# open document's push is never held (it is what the user waits for).
PUSH_SLICE_S = 0.005
PUSHES_PER_TURN = 32


@dataclass
class DocState:
    """What the client was last given for one URI."""

    diagnostics: list[types.Diagnostic]
    result_id: str


class DiagnosticsLedger:
    def __init__(self, port: Port, loop: asyncio.AbstractEventLoop):
        self.port = port
        self.loop = loop
        self.pull = False  # the client pulls (textDocument/diagnostic) instead of being pushed to
        self.refresh_support = False
        self.docs: dict[str, DocState] = {}  # uri → last diagnostics given
        self._counter = 0
        self._changed = asyncio.Event()  # set (and replaced) whenever diagnostics change
        self._refresh_timer: asyncio.TimerHandle | None = None
        self._outbox: dict[str, int | None] = {}  # uri → version: pushes held to a later turn
        self._turn_pushes = 0  # pushes sent in this turn of the loop, since `_turn_ends`
        self._turn_ends: float | None = None

    def _next_id(self) -> str:
        self._counter += 1
        return f"r{self._counter}"

    def set(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None, is_open: bool
    ) -> bool:
        """Record (and push, for push clients) `diagnostics` for `uri`; False if unchanged."""
        state = self.docs.get(uri)
        if state is not None and state.diagnostics == diagnostics:
            return False
        if state is None and not diagnostics and not is_open:
            self.docs[uri] = DocState([], self._next_id())
            return False
        self.docs[uri] = DocState(diagnostics, self._next_id())
        if not self.pull:
            self._push(uri, version, is_open)
        return True

    def _push(self, uri: str, version: int | None, is_open: bool) -> None:
        """Send `uri`'s diagnostics now, or hold them to a later turn of the loop when this
        turn has sent its share (`PUSH_SLICE_S`); a held push sends what is current then."""
        now = time.monotonic()
        if self._turn_ends is None:
            self._turn_ends = now + PUSH_SLICE_S
            self.loop.call_soon(self._next_turn)
        self._turn_pushes += 1
        if is_open or not self._outbox and (
            self._turn_pushes <= PUSHES_PER_TURN or now < self._turn_ends
        ):
            self._outbox.pop(uri, None)
            self.port.publish(uri, self.docs[uri].diagnostics, version)
            return
        if not self._outbox:
            self.loop.call_soon(self._drain)
        self._outbox[uri] = version

    def _next_turn(self) -> None:
        self._turn_ends, self._turn_pushes = None, 0

    def _drain(self) -> None:
        """Send held pushes for one slice, then let the loop read what came meanwhile."""
        ends = time.monotonic() + PUSH_SLICE_S
        outbox = self._outbox
        while outbox:
            uri = next(iter(outbox))
            version = outbox.pop(uri)
            state = self.docs.get(uri)
            if state is not None:
                self.port.publish(uri, state.diagnostics, version)
            if time.monotonic() >= ends:
                break
        if outbox:
            self.loop.call_soon(self._drain)

    @property
    def held(self) -> int:
        """Pushes waiting for a later turn of the loop."""
        return len(self._outbox)

    def remember(self, uri: str, diagnostics: list[types.Diagnostic]) -> DocState:
        state = DocState(diagnostics, self._next_id())
        self.docs[uri] = state
        return state

    def forget(self, uri: str) -> None:
        self.docs.pop(uri, None)
        self._outbox.pop(uri, None)

    def wake(self) -> None:
        """Wake a long-polling workspace/diagnostic request."""
        self._changed.set()
        self._changed = asyncio.Event()

    def schedule_refresh(self) -> None:
        if self._refresh_timer is None and self.refresh_support:
            self._refresh_timer = self.loop.call_later(0.1, self._refresh)

    def _refresh(self) -> None:
        self._refresh_timer = None
        self.port.refresh_diagnostics()

    @staticmethod
    def document_report(
        state: DocState, previous: str | None
    ) -> types.DocumentDiagnosticReport:
        if previous is not None and previous == state.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=state.result_id)
        return types.RelatedFullDocumentDiagnosticReport(
            items=state.diagnostics, result_id=state.result_id
        )

    async def workspace_report(
        self,
        previous: dict[str, str],
        long_poll: bool,
        known: Callable[[str], bool],
        version_of: Callable[[str], int | None],
    ) -> types.WorkspaceDiagnosticReport:
        """Every document's report; with `long_poll`, wait until something is new."""
        deadline = time.monotonic() + LONG_POLL_S
        while True:
            changed_event = self._changed
            items: list[types.WorkspaceDocumentDiagnosticReport] = []
            anything_new = False
            for uri, state in sorted(self.docs.items()):
                if not known(uri) and not state.diagnostics:
                    continue
                version = version_of(uri)
                if previous.get(uri) == state.result_id:
                    items.append(
                        types.WorkspaceUnchangedDocumentDiagnosticReport(
                            uri=uri, version=version, result_id=state.result_id
                        )
                    )
                else:
                    anything_new = True
                    items.append(
                        types.WorkspaceFullDocumentDiagnosticReport(
                            uri=uri,
                            version=version,
                            items=state.diagnostics,
                            result_id=state.result_id,
                        )
                    )
            if anything_new or not long_poll or time.monotonic() >= deadline:
                return types.WorkspaceDiagnosticReport(items=items)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    changed_event.wait(), timeout=max(0.1, deadline - time.monotonic())
                )
