"""File events, from the client's watchers (`workspace/didChangeWatchedFiles`) and ours, to
the folders' workspaces: one queue for both, applied once the watchers are quiet, a slice at a
turn of the event loop. A part of the `Engine` (state.py), which holds the folders.

A `git checkout` or a code generator sends thousands of notifications of one file each.
Applied one by one as they came, 3,000 files created that one document imports froze the loop
for minutes (issue #34: each re-resolved the document's 3,000 imports and re-published its
diagnostics): queued, they are applied together, and a request that comes with them (a hover)
is answered first. What a pull reads waits for them (`file_events_applied`).
"""

from __future__ import annotations

import asyncio
import logging
import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rulemap.host.disk import in_skipped_dir
from rulemap.lsp.diagnostics import uri_for

if TYPE_CHECKING:
    from rulemap.lsp.folders import Folder

log = logging.getLogger("rulemap.lsp")

# applied once the watchers have been quiet this long, at the latest this long after the first
# event, and this many at a time (~12 ms of work on 3,000 new files), FS_GAP_S apart: a request
# waits for one slice, not for one at each of its steps through the loop (back to back, three
# slices of 256 events held a hover 160 ms)
FS_QUIET_S = 0.05
FS_MAX_WAIT_S = 0.5
FS_SLICE = 128
FS_GAP_S = 0.005


class FileEventFlow:
    # held by the Engine (state.py)
    loop: asyncio.AbstractEventLoop
    folders: dict[str, Folder]
    closed: bool
    _fs_events: list[tuple[str, str]]
    _fs_timer: asyncio.Handle | None
    _fs_first: float | None
    _fs_last: float

    if TYPE_CHECKING:

        def locate_path(self, path: str) -> tuple[Folder, str] | None: ...

        def schedule_reopen(self, folder: Folder, delay: float | None = None) -> None: ...

        def graph_changed(self, uris: Iterable[str], rules_changed: bool = True) -> None: ...

        def _touch(self, folder: Folder, touched: set[str]) -> None: ...

    def file_events(self, events: Iterable[tuple[str, str]]) -> None:
        """`(kind, absolute path)` with kind created | changed | deleted, from the client's
        watchers or ours."""
        by_folder: dict[str, list[tuple[str, str]]] = {}
        for kind, path in events:
            path = posixpath.normpath(path)
            if in_skipped_dir(path):
                continue
            found = self.locate_path(path)
            if found is None:
                continue
            by_folder.setdefault(found[0].root, []).append((kind, path))
        for root, items in by_folder.items():
            folder = self.folders[root]
            if folder.refused:
                continue
            if folder.host is None or folder.indexing:
                folder.pending_events.extend(items)
                continue
            self._apply_events(folder, items)

    def queue_file_events(self, events: Iterable[tuple[str, str]]) -> None:
        """Events from the client's watchers (`workspace/didChangeWatchedFiles`) and ours, one
        path for both: applied once the watchers have been quiet for FS_QUIET_S (at the latest
        FS_MAX_WAIT_S after the first), FS_SLICE at a turn of the loop. A `git checkout` or a
        code generator sends thousands of notifications of one file each; applied one by one,
        as they came, they froze the loop (3,000 files created that one document imports: a
        hover waited ~80 s, issue #34). A request that comes with them is answered first."""
        self._fs_events.extend(events)
        if not self._fs_events or self.closed:
            return
        now = self.loop.time()
        self._fs_last = now
        if self._fs_first is None:
            self._fs_first = now
        if self._fs_timer is None:
            self._fs_timer = self.loop.call_at(now + FS_QUIET_S, self._fs_due)

    def queue_fs_event(self, kind: str, path: str) -> None:
        """From the watchdog thread (through call_soon_threadsafe)."""
        self.queue_file_events([(kind, path)])

    def _fs_due(self) -> None:
        self._fs_timer = None
        first = self._fs_first if self._fs_first is not None else self._fs_last
        due = min(self._fs_last + FS_QUIET_S, first + FS_MAX_WAIT_S)
        if due > self.loop.time() + 0.001:  # more came meanwhile: wait for the quiet
            self._fs_timer = self.loop.call_at(due, self._fs_due)
        else:
            self._apply_slice()

    def _apply_slice(self) -> None:
        self._fs_timer = None
        events, self._fs_events = self._fs_events[:FS_SLICE], self._fs_events[FS_SLICE:]
        if self._fs_events:  # the rest after what waits on the loop (a hover, say)
            self._fs_timer = self.loop.call_later(FS_GAP_S, self._apply_slice)
        else:
            self._fs_first = None
        self.file_events(events)

    async def file_events_applied(self) -> None:
        """Apply the queued events now, a slice at a turn of the loop (a pull wants the state
        as the client last described it)."""
        while self._fs_events and not self.closed:
            if self._fs_timer is not None:
                self._fs_timer.cancel()
            self._apply_slice()
            if self._fs_events:
                await asyncio.sleep(0)

    def _apply_events(self, folder: Folder, events: list[tuple[str, str]]) -> None:
        from rulemap.host.file_events import classify_events  # the engine: once indexed

        host = folder.host
        if host is None:
            return
        snap = host.snapshot()
        batch = classify_events(snap, events)
        created, changed, deleted = batch.created, batch.changed, batch.deleted
        ignores = batch.gitignore_changed
        changed = {k for k in changed if snap.content_matters(k)}
        del snap  # (held across the change below, it would fork the workspace)
        if not (created or changed or deleted or ignores or batch.config_changed):
            return
        log.debug(
            "file events in %s: +%d ~%d -%d", folder.root, len(created), len(changed), len(deleted)
        )
        if batch.config_changed or ignores:
            self.schedule_reopen(folder)
            self.graph_changed([uri_for(folder.path_of(k)) for k in created | changed | deleted])
            return
        touched = host.apply_change(changed=changed, created=created, deleted=deleted)
        self._touch(folder, touched)
        self.graph_changed(
            [uri_for(folder.path_of(k)) for k in created | changed | deleted],
            host.snapshot().rules_moved(touched, bool(created or deleted)),
        )

