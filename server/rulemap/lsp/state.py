"""The server's state: one `AnalysisHost` per workspace folder, open buffers, diagnostics.

Everything here runs on the event loop except the work handed to one worker thread: indexing a
folder (walking the tree), the whole-workspace check and the requests that read every document.
The loop owns each folder's host (edits, hovers, the edited document's own findings); the host
keeps a replica of its workspace for the worker (the whole-workspace check), with a log of its
changes replayed there before the worker next uses it (`rulemap.host.replica`). Changes go in
through the host (`edit_buffer`, `apply_change`); questions go out through its snapshots.

`Port` is how the state talks back to the client (implemented by the pygls server).
"""

from __future__ import annotations

import asyncio
import logging
import posixpath
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from rulemap.host import disk
from rulemap.host.cancel import CancelToken
from rulemap.host.disk import MAX_FILE_BYTES, is_within
from rulemap.host.text import Encoding
from rulemap.lsp import heap, start_cache
from rulemap.lsp.diagnostics import uri_for
from rulemap.lsp.event_flow import FileEventFlow
from rulemap.lsp.folders import Folder, Port, in_worker, path_of
from rulemap.lsp.ledger import DiagnosticsLedger
from rulemap.lsp.opening import Converted, make_replica, open_folder, publish_early, warm
from rulemap.lsp.publishing import MAX_LOCAL_BATCH, DiagnosticsFlow
from rulemap.lsp.settings import folder_settings

if TYPE_CHECKING:
    from rulemap.host import AnalysisHost
    from rulemap.host.checking import Checked

log = logging.getLogger("rulemap.lsp")
T = TypeVar("T")

PROGRESS_AFTER_S = 0.3  # index longer than this → window/workDoneProgress


class Engine(DiagnosticsFlow, FileEventFlow):
    def __init__(self, port: Port, loop: asyncio.AbstractEventLoop | None = None):
        disk.no_git_on_this_thread()  # the event loop's thread: git runs in the worker only
        self.port = port
        self.loop = loop or asyncio.get_event_loop()
        self.folders: dict[str, Folder] = {}  # root → folder
        self.open_docs: dict[str, tuple[str, int | None]] = {}  # canonical uri → (text, version)
        self.overlaid: dict[str, tuple[Folder, str]] = {}  # canonical uri → where its buffer lives
        self.encoding: Encoding = "utf-16"
        self.ledger = DiagnosticsLedger(port, self.loop)
        self.init_options: dict[str, Any] = {}
        self.client_settings: dict[str, Any] = {}  # from didChangeConfiguration (no pull)
        self.home = disk.real_path(disk.home_dir())
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulemap-worker")
        self._graph_uris: set[str] = set()
        self._graph_timer: asyncio.TimerHandle | None = None
        self._graph_rules_changed = False  # any of the pending graphChanged moved rule matches
        self._fs_events: list[tuple[str, str]] = []  # (kind, path) not yet applied
        self._fs_timer: asyncio.Handle | None = None
        self._fs_first: float | None = None  # loop time of the oldest queued event
        self._fs_last = 0.0  # … and of the newest
        self.closed = False

    # ----- folders -------------------------------------------------------------------------

    def add_folder(self, uri: str, name: str | None = None) -> Folder | None:
        path = path_of(uri)
        if path is None:
            self.port.show_message(
                types.MessageType.Warning,
                f"Rulemap: workspace folder {uri} is not a local folder; skipping it.",
            )
            return None
        if path in self.folders:
            return self.folders[path]
        folder = Folder(uri=uri_for(path), root=path, name=name or posixpath.basename(path) or path)
        real = disk.real_path(path)
        if real == "/" or real == self.home:
            where = "the file system root" if real == "/" else "your home directory"
            folder.refused = (
                f"Rulemap: not indexing {path}: it is {where}, and crawling it could take "
                f"minutes. Open a project folder instead."
            )
            self.port.show_message(types.MessageType.Warning, folder.refused)
            folder.ready.set()
        elif not disk.is_dir(path):
            folder.refused = f"Rulemap: workspace folder {path} does not exist."
            self.port.show_message(types.MessageType.Warning, folder.refused)
            folder.ready.set()
        self.folders[path] = folder
        return folder

    def remove_folder(self, uri: str) -> None:
        path = path_of(uri)
        folder = self.folders.pop(path or "", None)
        if folder is None:
            return
        heap.replacing()  # its workspace is cyclic: the collector must be able to free it
        folder.stop_timers()
        prefix = folder.uri + "/"
        for uri_ in [u for u in self.ledger.docs if u.startswith(prefix)]:
            if self.locate(uri_) is None:
                self.set_diagnostics(uri_, [], None)
                self.ledger.forget(uri_)
        self.ledger.wake()

    def locate(self, uri: str) -> tuple[Folder, str] | None:
        """The folder holding the file at `uri` and its key there (None outside every folder)."""
        path = path_of(uri)
        if path is None:
            return None
        return self.locate_path(path)

    def locate_path(self, path: str) -> tuple[Folder, str] | None:
        best: Folder | None = None
        for root, folder in self.folders.items():
            if (
                path != root
                and is_within(path, root)
                and (best is None or len(root) > len(best.root))
            ):
                best = folder
        if best is None:
            return None
        return best, best.key_of(path)

    def canonical(self, uri: str) -> str:
        path = path_of(uri)
        return uri_for(path) if path is not None else uri

    async def ready(self, folder: Folder) -> AnalysisHost | None:
        """Once the folder is indexed: its host, or None when it could not be indexed."""
        await folder.ready.wait()
        return folder.host

    async def ready_all(self) -> None:
        for folder in list(self.folders.values()):
            await folder.ready.wait()

    # ----- settings ------------------------------------------------------------------------

    async def load_settings(self, folders: Iterable[Folder], pull: bool) -> None:
        folders = list(folders)
        pulled: list[Any] | None = None
        if pull and folders:
            try:
                pulled = await self.port.fetch_settings([f.uri for f in folders])
            except Exception as exc:  # a client that fails workspace/configuration
                log.warning("workspace/configuration failed: %s", exc)
        for index, folder in enumerate(folders):
            scoped = pulled[index] if pulled is not None and index < len(pulled) else None
            folder.raw_settings, folder.settings, errors = folder_settings(
                self.init_options, self.client_settings, scoped
            )
            self._show_new(folder, "settings", errors)

    def _show_new(self, folder: Folder, topic: str, errors: list[str]) -> None:
        for message in folder.unshown(topic, [f"Rulemap: {e}" for e in errors]):
            self.port.show_message(types.MessageType.Error, message)

    # ----- indexing ------------------------------------------------------------------------

    async def index(self, folder: Folder) -> None:
        """(Re)open the folder's Workspace in the worker thread, then check it."""
        if self.closed:  # a re-index scheduled before `shutdown`
            folder.ready.set()
            return
        if folder.refused:
            folder.ready.set()
            return
        folder.epoch += 1
        epoch = folder.epoch
        heap.replacing()  # the old workspace, cyclic, must be collectable once replaced
        folder.indexing = True
        folder.ready.clear()
        overrides = dict(folder.settings.overrides)
        buffers = {path_of(u): text for u, (text, _) in self.open_docs.items()}
        # Nothing open here: check the whole folder in the worker before the loop gets the
        # Workspace (no edits can race it), which also parses everything hovers will need.
        check_now = not any(
            found is not None and found[0] is folder
            for found in (self.locate(u) for u in self.open_docs)
        )
        try:
            folder.start = await start_cache.begin(self, folder, overrides) if check_now else None
        finally:
            folder.begun.set()
        # An edit or an opened document cancels the check that follows the walk: waiting for
        # it (seconds on 2,000 rules) held the edit's diagnostics; the host is handed over at
        # the next document, family or agent, and checked whole in the worker's copy after
        folder.walk_stop = stop = CancelToken() if check_now else None
        job = self.loop.run_in_executor(
            self.executor, open_folder, folder.root, overrides, buffers, self.home, check_now,
            folder.settings.allow_imports_from, folder.start.recording if folder.start else None,
            publish_early(self, folder, epoch), stop, self.encoding,
        )
        token = None
        try:
            done, _ = await asyncio.wait({job}, timeout=PROGRESS_AFTER_S)
            if not done:
                token = await self.port.progress_begin(
                    f"Rulemap: indexing {folder.name}", folder.root
                )
            host, errors, findings, given = await job
            folder.walk_stop = None
        except Exception as exc:
            if self.closed:
                return  # the worker was shut down under it: nothing to say
            log.exception("indexing %s failed", folder.root)
            self.port.show_message(
                types.MessageType.Error, f"Rulemap: indexing {folder.root} failed: {exc}"
            )
            host, errors, findings, given = None, [], None, None
        finally:
            self.port.progress_end(token, "done")
        if epoch != folder.epoch or self.folders.get(folder.root) is not folder:
            return  # re-indexed or removed meanwhile
        try:
            await self._indexed(folder, epoch, host, errors, findings, given)
        except Exception:
            log.exception("after indexing %s", folder.root)
        finally:
            if epoch == folder.epoch:
                folder.indexing = False
                folder.ready.set()  # never leave requests waiting
                folder.replica_ready.set()

    async def _indexed(
        self,
        folder: Folder,
        epoch: int,
        host: AnalysisHost | None,
        errors: list[str],
        findings: Checked | None,
        given: Converted | None = None,
    ) -> None:
        self._show_new(folder, "config", errors)
        replaced = folder.host is not None
        folder.host = host  # a new host: no finding of the old one carries over
        folder.replica_ready.clear()
        folder.indexing = False
        folder.checked_gen = -1
        folder.local_queue.clear()
        folder.linted_at, folder.first = -1, None  # (of the old host)
        if host is None:
            folder.ready.set()
            return
        covered = host.generation  # what the findings of the walk's check are of
        if findings is not None:
            self._set_full(folder, findings, covered)
        snap = host.snapshot()
        for uri in self.open_docs:
            found = self.locate(uri)
            if found and found[0] is folder:
                if host.on_disk(found[1]) and not snap.content_matters(found[1]):
                    host.drop_buffer(found[1])  # a source file: the disk is as good
                else:
                    self.overlaid[uri] = found
        del snap
        pending, folder.pending = folder.pending, set()
        if pending:
            for uri, (text, _version) in self.open_docs.items():
                edited = path_of(uri)
                if edited and is_within(edited, folder.root) and len(text) <= MAX_FILE_BYTES:
                    host.set_buffer(folder.key_of(edited), text)  # edits made while it walked
            self._touch(folder, host.apply_change(changed=pending))
        events, folder.pending_events = folder.pending_events, []
        folder.ready.set()
        if events:
            self._apply_events(folder, events)
        # The open documents first: their own findings now, everything in the worker after.
        # Which documents are linted parses every one: an unchecked host (nothing checked it
        # whole yet) is parsed a slice at a time first, and meanwhile only the documents
        # linted by their kind are checked (publishing._rest_local)
        folder.warming = findings is None
        snap = host.snapshot()
        if folder.warming:
            mine = [key for f, key in self.overlaid.values() if f is folder]
            known = [key for key in mine if snap.linted_by_kind(key)]
            folder.local_queue.update(set(mine).difference(known))
        else:
            lint = set(snap.lint_documents())
            known = [key for f, key in self.overlaid.values() if f is folder and key in lint]
        del snap
        for key in sorted(known)[:MAX_LOCAL_BATCH]:
            host.findings.changed({key}, host.generation)
            folder.local_queue.add(key)
        self._run_local(folder)
        if findings is None:
            self.spawn(self._warm(folder, host))
        else:
            self._publish(folder, None, given)
            self._check_ended(folder, covered)
            if folder.start is not None:  # store what the client was given, for next time
                start_cache.finish(self, folder, folder.start, quiet=not pending and not events)
        # Then the worker's copy (changes made meanwhile are in the host's log and replay on it).
        # The indexed folder is out of the full collections first, and the copy once built:
        # building it and checking it whole make millions of objects, and each full collection
        # the worker ran meanwhile scanned all of them (65-320 ms, 400 levels deep), holding
        # the loop's reads of edits (heap.py)
        heap.settled(collect=replaced)
        buffers = {path_of(u): text for u, (text, _) in self.open_docs.items()}
        replica = await self.loop.run_in_executor(
            self.executor, make_replica(host, buffers)
        )
        if epoch != folder.epoch or folder.host is not host:
            return
        host.attach_replica(replica)
        heap.settled()
        folder.replica_ready.set()
        if findings is not None and host.generation == covered and not folder.check_again:
            # the walk's check covers the host as it is: checking its copy again found the
            # same findings (1.6 s of the worker on 2,000 rules), as new objects the loop
            # then converted again
            if not await self._after_whole(folder, findings):
                await self._run_full(folder)
        else:
            await self._run_full(folder)
        heap.settled()  # full collections no longer scan the indexed folder (heap.py)
        self.graph_changed([])

    async def _warm(self, folder: Folder, host: AnalysisHost) -> None:
        """Parse the loop's unchecked host a slice at a time (opening.warm), then check the
        open documents whose being linted waited for it."""
        try:
            await warm(host, lambda: folder.host is host and not self.closed)
        finally:
            if folder.host is host:
                folder.warming = False
        if folder.host is host and folder.local_queue and not self.closed:
            self._rest_local(folder, host, folder.epoch)

    async def on_replica(
        self,
        folder: Folder,
        function: Callable[..., T],
        *args: Any,
        cancel: CancelToken | None = None,
    ) -> T:
        """Run `function(snapshot, *args)` in the worker, on a snapshot of the folder's
        replica in the folder's `profile`, after replaying the pending changes
        (`AnalysisHost.worker_job`). Cancellable: see `folders.in_worker`."""
        if not self._replica_built(folder) and not (folder.host is None
                                                    and folder.ready.is_set()):
            await asyncio.wait_for(folder.replica_ready.wait(), 120)
        host = folder.host
        if host is None or not host.has_replica:
            raise RuntimeError(f"{folder.root} is not indexed")
        work = host.worker_job(function, args, cancel, folder.agent())
        return await in_worker(self.loop, self.executor, work, cancel)

    @staticmethod
    def _replica_built(folder: Folder) -> bool:
        return folder.host is not None and folder.host.has_replica

    def schedule_reopen(self, folder: Folder, delay: float | None = None) -> None:
        if folder.reopen_timer is not None:
            folder.reopen_timer.cancel()
        wait = folder.settings.debounce_ms / 1000 if delay is None else delay
        folder.reopen_timer = self.loop.call_later(wait, lambda: self.spawn(self.index(folder)))

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        task.add_done_callback(_log_failure)

    # ----- buffers -------------------------------------------------------------------------

    def did_open(self, uri: str, text: str, version: int | None) -> None:
        canonical = self.canonical(uri)
        self.open_docs[canonical] = (text, version)
        self._buffer_changed(canonical, text)

    def did_change(self, uri: str, text: str, version: int | None) -> None:
        canonical = self.canonical(uri)
        if canonical not in self.open_docs:
            log.info("didChange for a document that is not open: %s", uri)
        self.open_docs[canonical] = (text, version)
        self._buffer_changed(canonical, text)

    def did_close(self, uri: str) -> None:
        canonical = self.canonical(uri)
        self.open_docs.pop(canonical, None)
        found = self.overlaid.pop(canonical, None)
        if found is None:
            return
        folder, key = found
        host = folder.host
        if host is None:
            return
        host.drop_buffer(key)
        on_disk = host.on_disk(key)
        touched = host.apply_change(changed=[key]) if on_disk else host.apply_change(deleted=[key])
        self._touch(folder, touched)
        self.graph_changed([canonical], host.snapshot().rules_moved(touched, not on_disk))

    def did_save(self, uri: str) -> None:
        canonical = self.canonical(uri)
        if canonical in self.overlaid:
            return  # the graph already has the buffer
        path = path_of(uri)
        if path is not None:
            self.file_events([("changed", path)])

    def _buffer_changed(self, uri: str, text: str) -> None:
        found = self.locate(uri)
        if found is None:
            return
        folder, key = found
        if folder.refused:
            return
        host = folder.host
        if host is None or folder.indexing:
            folder.pending.add(key)
            if folder.walk_stop is not None:
                folder.walk_stop.cancel()  # the editor needs the host now (`index`)
            if host is not None:  # the old host, until the walk is done
                host.set_buffer(key, text)
            return
        if len(text) > MAX_FILE_BYTES:
            if uri in self.overlaid:  # too big: let the disk reader say so
                host.drop_buffer(key)
                self.overlaid.pop(uri, None)
                self._touch(folder, host.apply_change(changed=[key]))
            return
        if host.on_disk(key) and not host.snapshot().content_matters(key):
            if uri in self.overlaid:  # it used to matter (an import was removed)
                self.overlaid.pop(uri, None)
                host.drop_buffer(key)
            return  # a source file: its text never changes the graph
        self.overlaid[uri] = (folder, key)
        if host.buffer(key) == text:
            return
        created = not host.on_disk(key) and not host.snapshot().indexed(key)
        before = host.generation
        touched = host.edit_buffer(key, text)
        self._touch(folder, touched, None if created else key, before)
        self.graph_changed([uri], host.snapshot().rules_moved(touched, created))

    # ----- helpers -------------------------------------------------------------------------

    def close(self) -> None:
        """`shutdown`: no timer fires and no work starts after this."""
        self.closed = True
        for folder in self.folders.values():
            folder.stop_timers()
        for timer in (self._graph_timer, self._fs_timer):
            if timer is not None:
                timer.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)



def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("background task failed", exc_info=task.exception())
