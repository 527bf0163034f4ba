"""What the client is told: diagnostics, and that the graph changed.

From touched documents to the client's diagnostics: the checks a folder runs and when (one
document at once, debounced; the whole workspace in the worker, a trailing debounce), and the
diagnostics they give, pushed when they changed or pulled (`textDocument/diagnostic`,
`workspace/diagnostic`); `rulemap/graphChanged` (debounced, with whether rule matches may
have moved). A part of the `Engine` (state.py), which holds the folders."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import posixpath
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from rulemap.lsp import heap
from rulemap.lsp.diagnostics import to_diagnostics, uri_for

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from rulemap.host import AnalysisHost, CancelToken, Snapshot
    from rulemap.host.checking import Checked
    from rulemap.host.text import Encoding
    from rulemap.lsp.folders import Folder, Port
    from rulemap.lsp.ledger import DiagnosticsLedger
    from rulemap.lsp.opening import Converted
    from rulemap.model import Document, Finding

log = logging.getLogger("rulemap.lsp")
T = TypeVar("T")

MAX_LOCAL_BATCH = 25  # more touched documents than this → wait for the full check
CHECK_POLL_S = 1.0  # a pull waiting for a whole check looks again this often (a re-index)


class DiagnosticsFlow:
    # held by the Engine (state.py)
    loop: asyncio.AbstractEventLoop
    executor: Executor
    home: str
    ledger: DiagnosticsLedger
    encoding: Encoding
    open_docs: dict[str, tuple[str, int | None]]
    folders: dict[str, Folder]
    closed: bool
    port: Port
    _graph_uris: set[str]
    _graph_rules_changed: bool
    _graph_timer: asyncio.TimerHandle | None

    if TYPE_CHECKING:

        def spawn(self, coro: Awaitable[Any]) -> None: ...

        async def on_replica(
            self,
            folder: Folder,
            function: Callable[..., T],
            *args: Any,
            cancel: CancelToken | None = None,
        ) -> T: ...

        def locate(self, uri: str) -> tuple[Folder, str] | None: ...

        def canonical(self, uri: str) -> str: ...

        async def ready(self, folder: Folder) -> AnalysisHost | None: ...

        async def ready_all(self) -> None: ...

        def schedule_reopen(self, folder: Folder, delay: float | None = None) -> None: ...

        async def file_events_applied(self) -> None: ...

    # ----- diagnostics scheduling -----------------------------------------------------------

    def _touch(self, folder: Folder, touched: set[str], edited: str | None = None,
               before: int = -1) -> None:
        """`edited`: the one document an editor's change was of (not a creation), the host
        at generation `before` until then."""
        host = folder.host
        if host is None or not touched:
            return
        if "*config*" in touched:
            self.schedule_reopen(folder)
            return
        host.findings.changed(touched, host.generation)
        # Which documents are linted (the import graph walked again, ~10 ms 400 levels deep)
        # is decided when the local check runs, after the edited document is published: an
        # edit of one document never changes whether it is linted itself (every import chain
        # reaching it from an instruction file or rule ends before its own imports).
        if (edited is not None and touched == {edited} and folder.linted_at == before
                and edited in folder.linted):
            folder.first = edited
        folder.local_queue |= touched
        self._schedule_local(folder, touched)
        self._schedule_full(folder)

    def _lint_now(self, folder: Folder, host: AnalysisHost) -> frozenset[str]:
        """The documents linted now; the own findings of those no longer linted forgotten."""
        if folder.linted_at != host.generation:
            lint = frozenset(host.snapshot().lint_documents())
            host.findings.keep_documents(set(lint))
            folder.linted, folder.linted_at = lint, host.generation
        return folder.linted

    def _has_diagnostics(self, folder: Folder, key: str) -> bool:
        state = self.ledger.docs.get(uri_for(posixpath.join(folder.root, key)))
        return state is not None and bool(state.diagnostics)

    def _schedule_local(self, folder: Folder, touched: set[str]) -> None:
        delay = folder.settings.debounce_ms / 1000
        now = time.monotonic()
        for key in touched:
            timer = folder.timers.pop(key, None)
            if timer is not None:
                timer.cancel()
        # One timer per edited document; dependents ride along with it.
        anchor = min(touched)
        quiet = now - folder.last_local.get(anchor, 0.0) >= delay and not folder.timers
        if quiet:
            folder.last_local[anchor] = now
            folder.timers[anchor] = self.loop.call_soon(
                self._local_timer, folder, anchor, folder.epoch
            )  # type: ignore[assignment]
        else:
            folder.timers[anchor] = self.loop.call_later(
                delay, self._local_timer, folder, anchor, folder.epoch
            )

    def _local_timer(self, folder: Folder, anchor: str, epoch: int) -> None:
        folder.timers.pop(anchor, None)
        if epoch != folder.epoch:
            return
        folder.last_local[anchor] = time.monotonic()
        self._run_local(folder)

    def flush(self, folder: Folder) -> None:
        """Compute pending per-document findings now (a pull is waiting for them)."""
        if folder.local_queue and folder.host is not None and not folder.indexing:
            for timer in folder.timers.values():
                timer.cancel()
            folder.timers.clear()
            self._run_local(folder)
            if folder.host is not None:  # all of it now, not on the loop's next turn
                self._rest_local(folder, folder.host, folder.epoch)

    def _run_local(self, folder: Folder) -> None:
        host = folder.host
        if host is None or not folder.local_queue:
            return
        first, folder.first = folder.first, None
        if first is not None and first in folder.local_queue:
            # the edited document alone first: what the typing user waits for
            folder.local_queue.discard(first)
            self._check_local(folder, host, {first}, linted=True)
            if folder.local_queue or folder.linted_at != host.generation:
                self.loop.call_soon(self._rest_local, folder, host, folder.epoch)
            return
        self._rest_local(folder, host, folder.epoch)

    def _rest_local(self, folder: Folder, host: AnalysisHost, epoch: int) -> None:
        if folder.host is not host or epoch != folder.epoch:
            return
        if folder.warming and folder.linted_at != host.generation:
            # the host is being parsed (state.py `_warm`): which documents are linted would
            # parse every one on the loop now (a second on 2,000 rules); those linted by their
            # kind are checked now, the rest when the warm-up is done
            snap = host.snapshot()
            now = {k for k in folder.local_queue if snap.linted_by_kind(k)}
            del snap
            folder.local_queue -= now
            if now and len(now) <= MAX_LOCAL_BATCH:
                self._check_local(folder, host, now, linted=True)
            return
        keys, folder.local_queue = folder.local_queue, set()
        lint = self._lint_now(folder, host)
        keys = {k for k in keys if k in lint or self._has_diagnostics(folder, k)}
        if keys and len(keys) <= MAX_LOCAL_BATCH:  # more: a checkout, the full check answers
            self._check_local(folder, host, keys)

    def _check_local(self, folder: Folder, host: AnalysisHost, keys: set[str],
                     linted: bool | None = None) -> None:
        for key in keys:
            try:  # (none for a document deleted since the edit)
                host.check_document(key, linted)
            except Exception:
                log.exception("checking %s failed", key)
        self._publish(folder, keys)

    def _schedule_full(self, folder: Folder) -> None:
        if folder.full_timer is not None:
            folder.full_timer.cancel()
        # A trailing debounce: while someone types faster than debounceMs no full check starts;
        # one that is running when more edits arrive is followed by exactly one more.
        delay = folder.settings.debounce_ms / 1000
        folder.full_timer = self.loop.call_later(delay, self._full_timer, folder)

    def _full_timer(self, folder: Folder) -> None:
        folder.full_timer = None
        self.spawn(self._run_full(folder))

    async def _run_full(self, folder: Folder) -> None:
        if folder.check_running or folder.host is None or not folder.host.has_replica:
            folder.check_again = True
            return
        folder.check_running = True
        try:
            while True:
                folder.check_again = False
                host = folder.host
                epoch = folder.epoch
                if host is None or self.closed:
                    return
                generation = host.generation  # the replica will be at this point of the log
                started = time.monotonic()
                try:
                    findings: Checked | None = await self.on_replica(folder, _whole_check)
                except Exception:
                    if self.closed:
                        return
                    log.exception("checking %s failed", folder.root)
                    findings = None
                folder.full_seconds = time.monotonic() - started
                log.debug("full check of %s: %.0f ms", folder.root, folder.full_seconds * 1000)
                if epoch != folder.epoch or folder.host is not host:
                    return
                if findings is not None:
                    self._set_full(folder, findings, generation)
                    self._publish(folder, None)
                self._check_ended(folder, generation)  # (a failed check too: no pull hangs)
                # its findings live until the next check (heap.py): frozen even when another
                # follows at once — while edits keep coming, each check's replica and findings
                # were scanned by full collections of 65-320 ms in the worker, which stopped
                # the loop from reading an edit for as long
                heap.settled()
                if await self._after_whole(folder, findings):
                    return
        finally:
            folder.check_running = False

    async def _after_whole(self, folder: Folder, findings: Checked | None) -> bool:
        """What follows a whole check: the renames git knows when it found a stale reference,
        then, unless another check was asked for meanwhile, the "who loads it" overviews.
        Whether nothing more was asked."""
        if findings is not None and any(f.code == "stale-reference" for f in findings.all):
            await self._renames(folder)
        if folder.check_again:
            return False
        from rulemap.lsp.reach_lens import after_check

        after_check(self, folder)
        return True

    async def _renames(self, folder: Folder) -> None:
        """The renames git knows, asked in the worker and handed to the loop's workspace, so
        that a stale reference's hover and quick fix say where it moved without the event
        loop waiting for git (which it never runs: `git_renames.no_git_on_this_thread`)."""
        from rulemap.host.checking import renames

        try:
            found = await self.on_replica(folder, renames)
        except Exception:
            log.exception("reading the renames of %s", folder.root)
            return
        if folder.host is not None:
            folder.host.keep_renames(found)

    @staticmethod
    def _check_ended(folder: Folder, generation: int) -> None:
        folder.checked_gen = max(folder.checked_gen, generation)
        folder.check_ended.set()
        folder.check_ended = asyncio.Event()

    async def checked(self, folder: Folder) -> None:
        """Until a whole check of the folder has run for every update applied before this was
        called (run now when it waits for its debounce): what a pull answers from then is the
        findings of the latest text the server received, the graph-wide ones too. Updates that
        come meanwhile are the next pull's."""
        host = folder.host
        target = host.generation if host is not None else -1
        while not self.closed and self.folders.get(folder.root) is folder:
            if folder.host is not host:  # indexed again meanwhile: its first check, then
                await folder.ready.wait()
                host = folder.host
                target = host.generation if host is not None else -1
            if host is None or folder.checked_gen >= target:
                return
            if not host.has_replica and folder.replica_ready.is_set():
                return  # no copy for the worker (making it failed): no check will come
            ended = folder.check_ended
            if folder.full_timer is not None:  # debounced: a pull is waiting, so now
                folder.full_timer.cancel()
                folder.full_timer = None
                self.spawn(self._run_full(folder))
            elif not folder.check_running and host.has_replica:
                self.spawn(self._run_full(folder))  # (none scheduled: nothing left behind)
            # woken when a check ends; the timeout re-reads the state (a re-index, say)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), CHECK_POLL_S)

    @staticmethod
    def _set_full(folder: Folder, findings: Checked, generation: int) -> None:
        """Findings of a whole-workspace check of the graph as it was at `generation`."""
        if folder.host is not None:
            folder.host.findings.set_whole(findings, generation)

    # ----- current findings ----------------------------------------------------------------

    def _publish(self, folder: Folder, keys: set[str] | None,
                 given: Converted | None = None) -> None:
        """Recompute the diagnostics of `keys` (None: every document of the folder) and hand
        the changed ones to the client. `given`: URIs and diagnostics the worker made of the
        walk's whole check (lsp/opening.py), taken where the findings and text are still the
        ones they were made of."""
        host = folder.host
        if host is None:
            return
        snap = host.snapshot()
        # Every lint document, and any other file a finding points into (an imported file that
        # closes a cycle, say).
        wanted = ({*self._lint_now(folder, host), *host.findings.keys()} if keys is None
                  else set(keys))
        changed: list[str] = []
        wanted_uris: set[str] = set()
        published = folder.published
        convert: list[tuple[str, str, list[Finding], Document | None]] = []
        docs = self.ledger.docs
        for key in wanted:
            last = published.get(key)
            # a key's URI is kept with what was published of it: quoting a path 400 levels
            # deep for each of 3,752 documents after every whole check was ~15 ms of the loop
            uri = (last[3] if last is not None
                   else given.uris[key] if given is not None and key in given.uris
                   else uri_for(snap.abs(key)))
            wanted_uris.add(uri)
            if key.startswith("/"):
                continue
            findings = host.findings.of(key)
            # the same finding objects as last time (the engine hands back what it cached),
            # over the same text: their diagnostics are what the client has; converting 300
            # findings of 400 documents after every edit's whole check would cost the loop
            # ~20 ms. An edited text converts them again: a graph finding kept from the last
            # whole check may now lie past the document's end, and is left out then
            doc = snap.document(key) if findings else None
            if (
                last is not None
                and last[1] == self.encoding
                and last[2] is doc
                and len(last[0]) == len(findings)
                and all(a is b for a, b in zip(last[0], findings, strict=True))
                and uri in docs
            ):
                continue
            convert.append((key, uri, findings, doc))
        for key, uri, findings, doc in sorted(convert, key=lambda c: c[0]):
            published[key] = (list(findings), self.encoding, doc, uri)
            ready = given.diagnostics.get(key) if given is not None else None
            if (ready is not None and ready[1] is doc and len(ready[0]) == len(findings)
                    and all(a is b for a, b in zip(ready[0], findings, strict=True))):
                diagnostics = ready[2]
            else:
                diagnostics = to_diagnostics(snap, key, findings, self.encoding)
            if self.set_diagnostics(uri, diagnostics, self.version_of(uri)):
                changed.append(uri)
        if keys is None:
            prefix = folder.uri + "/"
            stale = [
                u for u, st in self.ledger.docs.items()
                if u.startswith(prefix) and st.diagnostics and u not in wanted_uris
            ]
            for key in [k for k in published if k not in wanted]:
                del published[key]
            for uri in stale:
                found = self.locate(uri)
                gone = found is None or found[0] is not folder or found[1] not in wanted
                if gone and self.set_diagnostics(uri, [], self.version_of(uri)):
                    changed.append(uri)
        if changed:
            self.ledger.wake()
            # a pull client asks again for the document it just edited, not for the others:
            # a closed document's change (a file it imports was created, say) is news only
            # with a refresh — without one it went unheard whenever the whole check after it
            # found nothing else to change
            if self.ledger.pull and (keys is None or len(changed) > 1
                                     or any(u not in self.open_docs for u in changed)):
                self.ledger.schedule_refresh()

    def version_of(self, uri: str) -> int | None:
        entry = self.open_docs.get(uri)
        return entry[1] if entry else None

    def set_diagnostics(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None
    ) -> bool:
        return self.ledger.set(uri, diagnostics, version, is_open=uri in self.open_docs)

    # ----- pull diagnostics ----------------------------------------------------------------

    async def document_report(
        self, uri: str, previous: str | None
    ) -> types.DocumentDiagnosticReport:
        canonical = self.canonical(uri)
        found = self.locate(uri)
        if found is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        folder, key = found
        await self.file_events_applied()
        if await self.ready(folder) is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        await self.checked(folder)
        host = folder.host
        if host is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        self.flush(folder)
        state = self.ledger.docs.get(canonical)
        if state is None:
            diagnostics = to_diagnostics(host.snapshot(), key, host.findings.of(key),
                                         self.encoding)
            state = self.ledger.remember(canonical, diagnostics)
        return self.ledger.document_report(state, previous)

    async def workspace_report(
        self, previous: dict[str, str], long_poll: bool
    ) -> types.WorkspaceDiagnosticReport:
        await self.file_events_applied()
        await self.ready_all()
        for folder in list(self.folders.values()):
            await self.checked(folder)
        for folder in self.folders.values():
            self.flush(folder)
        return await self.ledger.workspace_report(
            previous, long_poll, lambda uri: self.locate(uri) is not None, self.version_of
        )

    # ----- graph changed -------------------------------------------------------------------

    def graph_changed(self, uris: Iterable[str], rules_changed: bool = True) -> None:
        """Tell views to refresh (debounced). `rules_changed`: which rules match which file may
        have moved (True unless the caller knows no rule and no file's existence changed), so
        clients need not guess it from the URIs."""
        self._graph_uris.update(uris)
        self._graph_rules_changed = self._graph_rules_changed or rules_changed
        if self._graph_timer is None:
            self._graph_timer = self.loop.call_later(0.2, self._send_graph_changed)

    def _send_graph_changed(self) -> None:
        self._graph_timer = None
        uris, self._graph_uris = sorted(self._graph_uris), set()
        rules_changed, self._graph_rules_changed = self._graph_rules_changed, False
        self.port.notify("rulemap/graphChanged", {"uris": uris, "rulesChanged": rules_changed})


def _whole_check(snap: Snapshot) -> Checked:
    """In the worker: the whole check of the replica, a build for the collector (heap.py)."""
    from rulemap.host.checking import whole_check

    with heap.building():
        return whole_check(snap)
