"""`AnalysisHost`: one workspace's engine state — changes in, snapshots out.

The host owns what the engine keeps of a workspace folder: the workspace with its overlay of
the editor's unsaved buffers, the findings the edges show (`host/findings.py`), the worker
thread's replica and the log of changes it has yet to replay (`host/replica.py`). Changes go
in through it (`apply_change` for files, `set_buffer`/`drop_buffer`/`edit_buffer` for the
editor's text); every question goes out through a `Snapshot` (`host/snapshot.py`), which keeps
answering from the state it was taken of: before a change, a snapshot still held gets a fork
of that state (`_release`, `host/fork.py`). Not thread-safe: one thread owns a host, as the
worker owns the replica.
"""

from __future__ import annotations

import gc
import posixpath
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from rulemap import analysis
from rulemap.host.cancel import CancelToken
from rulemap.host.findings import Findings
from rulemap.host.fork import AsItWas, Pin, fork
from rulemap.host.snapshot import Snapshot
from rulemap.profiles import PROFILES
from rulemap.readers.base import MAX_FILE_BYTES
from rulemap.readers.overlay import OverlayReader
from rulemap.workspace import Workspace

# replica.py (the worker's log of changes) is imported by a host that keeps a replica: the
# editor's, never a one-shot check's
if TYPE_CHECKING:
    from rulemap.host.replica import Replayed, ReplayLog

T = TypeVar("T")


class AnalysisHost:
    """The engine for one workspace folder, as the editor sees it: changes in, snapshots out.

    It owns the folder's engine state: the workspace and the overlay of the editor's open
    buffers it reads through (`set_buffer`, `drop_buffer`; buffer text goes in as a change),
    the agent selection (made once, when first asked), the findings of the whole check and of
    each edited document (`findings`, `host/findings.py`), and — when its questions are also
    asked in a worker thread — the worker's replica with the log of changes it has not seen
    (`host/replica.py`). Not thread-safe: one thread owns a host (the replica is the worker's).
    """

    def __init__(self, ws: Workspace, replicated: bool = False) -> None:
        """`replicated`: a worker will keep a replica of the workspace (`replica_builder`);
        every change from now on is logged for it."""
        self._ws = ws
        self._pinned: weakref.ref[Pin] | None = None  # the pin of the live snapshots
        self.findings = Findings()
        self._replica: Workspace | None = None
        self._log: ReplayLog | None = None
        if replicated:
            from rulemap.host.replica import ReplayLog

            self._log = ReplayLog()

    @classmethod
    def open(cls, root: str, **options: Any) -> AnalysisHost:
        """A host over the folder `root` (`analysis.open_workspace`'s options: overrides,
        home, allow_imports_from, profiles, user_home, reader…). Raises ConfigError."""
        return cls(analysis.open_workspace(root, **options))

    @property
    def generation(self) -> int:
        """Bumped by every change that reached the workspace (a snapshot's freshness)."""
        return self._ws.generation

    # ----- changes -------------------------------------------------------------------------

    def apply_change(
        self,
        changed: Iterable[str] = (),
        created: Iterable[str] = (),
        deleted: Iterable[str] = (),
    ) -> set[str]:
        """Tell the engine which files changed on disk or in a buffer (keys, root-relative);
        the keys whose parsed state was touched come back."""
        changed, created, deleted = set(changed), set(created), set(deleted)
        self._release(created, deleted)
        touched = self._ws.update(changed=set(changed), created=set(created),
                                  deleted=set(deleted))
        if self._log is not None:
            overlay = self._overlay()
            buffers = {
                k: overlay.buffers.get(posixpath.normpath(self._ws.abs(k)))
                if overlay is not None else None
                for k in changed | created | deleted
            }
            self._log.record(changed, created, deleted, buffers)
        return touched

    def buffer(self, key: str) -> str | None:
        """The editor's text of `key` the engine reads instead of the disk (None: the disk)."""
        overlay = self._overlay()
        return overlay.buffers.get(posixpath.normpath(self._ws.abs(key))) if overlay else None

    def set_buffer(self, key: str, text: str) -> None:
        """Read `text` as `key`'s content from now on; the change itself is `apply_change`'s
        (or `edit_buffer`, both at once)."""
        overlay = self._overlay()
        if overlay is not None and len(text) <= MAX_FILE_BYTES:
            self._release()
            overlay.set_buffer(self._ws.abs(key), text)

    def drop_buffer(self, key: str) -> None:
        """Read `key` from the disk again (the change is `apply_change`'s)."""
        overlay = self._overlay()
        if overlay is not None and posixpath.normpath(self._ws.abs(key)) in overlay.buffers:
            self._release()
            overlay.drop_buffer(self._ws.abs(key))

    def edit_buffer(self, key: str, text: str) -> set[str]:
        """An editor buffer's new text: read as `key`'s content, a change (a creation when no
        file of that name is there); the touched keys come back."""
        created = not self.on_disk(key) and key not in self._ws.files
        self.set_buffer(key, text)
        return self.apply_change(created=[key]) if created else self.apply_change(changed=[key])

    def on_disk(self, key: str) -> bool:
        """Whether the file is on disk (whatever the buffers say)."""
        overlay = self._overlay()
        reader = overlay.base if overlay is not None else self._ws.reader
        return reader.exists(self._ws.abs(key))

    def keep_renames(self, renames: Any) -> None:
        """The renames git knows (`host.checking.renames`, asked in the worker), kept for a
        stale reference's hover and quick fix: the thread that owns the host runs no git."""
        from rulemap.checks import stale_reference

        stale_reference.keep_renames(self._ws, renames)

    def check_document(self, key: str, linted: bool | None = None) -> None:
        """Run `key`'s own checks (none when it is no longer linted) into `findings.local`.
        `linted`: whether it is, when the caller knows (None: asked of the workspace)."""
        if linted if linted is not None else key in self._ws.lint_documents():
            from rulemap.checks import document_findings

            self.findings.local[key] = document_findings(self._ws, key)
        else:
            self.findings.local[key] = []

    def _overlay(self) -> OverlayReader | None:
        reader = self._ws.reader
        return reader if isinstance(reader, OverlayReader) else None

    # ----- snapshots -----------------------------------------------------------------------

    def snapshot(self, profile: str | None = None) -> Snapshot:
        """The questions of one request, in the terms of `profile` (None, or a name no agent
        is registered under: the workspace's own agent): the workspace as it is now, whatever
        changes come after."""
        pin = self._pinned() if self._pinned is not None else None
        if pin is None:
            pin = Pin(self._ws)
            self._pinned = weakref.ref(pin)
        return Snapshot(pin, profile if profile in PROFILES else None)

    def _release(self, created: Iterable[str] = (), deleted: Iterable[str] = ()) -> None:
        """Before a change of the workspace: the snapshots still held keep the state they were
        taken of, on a fork (the host goes on with its own workspace, which the edges'
        references — the overlay, the replay log — are to). The files the change creates or
        deletes are already so on disk: the fork's reader is told they were not, or were,
        there (`host/fork.py`)."""
        pinned, self._pinned = self._pinned, None
        if pinned is None or pinned() is None:
            return
        gc.collect()  # a snapshot left in a cycle (a traceback's frame) is not held
        pin = pinned()
        if pin is None:
            return
        copy = fork(self._ws)
        created, deleted = set(created), set(deleted)
        if copy is not None and (created or deleted):
            overlay = copy.reader
            if isinstance(overlay, OverlayReader):
                overlay.base = AsItWas(
                    overlay.base, {copy.abs(k) for k in created}, {copy.abs(k) for k in deleted})
        pin.ws = copy

    # ----- the worker's replica ------------------------------------------------------------

    def attach_replica(self, replica: Workspace) -> None:
        """The worker's copy is built: `worker_job` runs on it from now on."""
        self._replica = replica

    @property
    def has_replica(self) -> bool:
        return self._replica is not None

    def worker_job(
        self,
        function: Callable[..., T],
        args: tuple[Any, ...],
        cancel: CancelToken | None = None,
        profile: str | None = None,
    ) -> Callable[[], T]:
        """What the worker runs for `function(snapshot, *args)` on the replica: the changes
        logged until now replayed first, then `function` — unless `cancel` was set meanwhile
        (Cancelled; the replay is never skipped: the log is the replica's only way to this
        host's state). Call on the host's thread; the log is handed over now."""
        replica = self._replica
        if replica is None:
            raise RuntimeError(f"{self._ws.root} has no replica")
        log = self._log.take() if self._log is not None else []
        return lambda: replay_and_run(replica, log, function, args, cancel, profile)


def replay_and_run(
    replica: Workspace,
    log: list[Replayed],
    function: Callable[..., T],
    args: tuple[Any, ...],
    cancel: CancelToken | None = None,
    profile: str | None = None,
) -> T:
    """In the worker: bring the replica up to date, then run `function` on a snapshot of it
    in the terms of `profile` (see `AnalysisHost.worker_job`)."""
    from rulemap.host.replica import replay

    replay(replica, log)
    if cancel is not None:
        cancel.check()
    return function(AnalysisHost(replica).snapshot(profile), *args)
