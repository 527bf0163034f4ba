"""Opening a folder for the language server: its host over the disk and the editor's
buffers, the configuration's errors, and the first whole check when asked.

Runs in the worker thread (the walk of a big tree takes seconds); `warming` is for the thread
that owns the host afterwards: it parses every document and what it imports a step at a time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from rulemap.host.analysis_host import AnalysisHost
from rulemap.host.cancel import Cancelled, CancelToken
from rulemap.host.checking import whole_check
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.readers.base import MAX_FILE_BYTES, is_within
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.checks import Checked
    from rulemap.model import Finding
    from rulemap.readers.overlay import OverlayReader
    from rulemap.readers.recording import Recording
    from rulemap.workspace import Workspace


EARLY_BATCH_S = 0.1  # a cold start publishes the files checked so far this often


def _log_exception(message: str, *args: object) -> None:
    # logging (traceback, textwrap: 4 ms of imports) only when something failed
    import logging

    logging.getLogger("rulemap.lsp").exception(message, *args)


@record(frozen=True)
class Opened:
    """A folder opened: its host (None when it could not be), the configuration's errors as
    messages, and the whole check's findings when one was asked for."""

    host: AnalysisHost | None
    errors: list[str]
    checked: Checked | None


def overlay_for(
    root: str, buffers: Mapping[str | None, str], allowed: tuple[str, ...] = (),
    recording: Recording | None = None,
) -> OverlayReader:
    """The disk of `root` under the editor's open buffers (those inside it, not too large);
    read through `recording` (the start cache's) when given."""
    from rulemap.readers.local import LocalReader
    from rulemap.readers.overlay import OverlayReader
    from rulemap.readers.recording_reader import recorded_by

    base = (recorded_by(recording)(root, allowed) if recording is not None
            else LocalReader(root, allowed))
    overlay = OverlayReader(base)
    for path, text in buffers.items():
        if path and is_within(path, root) and len(text) <= MAX_FILE_BYTES:
            overlay.set_buffer(path, text)
    return overlay


def open_folder(
    root: str,
    overrides: dict[str, Any],
    buffers: Mapping[str | None, str],
    home: str,
    allowed: tuple[str, ...],
    check_now: bool = False,
    recording: Any = None,
    early: Callable[[AnalysisHost, list[Finding]], None] | None = None,
    stop: CancelToken | None = None,
) -> Opened:
    """Walk the folder, read its configuration (its defaults on an error, returned as a
    message), check it whole if asked. Imports may leave the folder for `allowed` only (what
    the user granted); never the folder's own `allowImportsFrom`. `recording`: the start
    cache's record of what the walk and the check read (`rulemap.readers.recording`).
    `early`: given the host and the per-document findings (finalized), a batch at a time,
    before the whole check, which takes several times as long (the graph-wide checks and
    every agent's). `stop`: once cancelled (an edit came: the editor needs the host now), the
    check ends at its next document, family or agent, and the host is handed over unchecked
    (`checked` None: the language server checks it whole in the worker's copy afterwards)."""
    from rulemap import analysis
    from rulemap.config import Config, ConfigError
    from rulemap.readers.local import LocalReader

    overlay = overlay_for(root, buffers, recording=recording)
    errors: list[str] = []
    try:
        ws = analysis.open_workspace(
            root, reader=overlay, overrides=overrides, home=home, allow_imports_from=allowed
        )
    except ConfigError as exc:
        errors.append(f"configuration error: {exc}. Using the defaults until it is fixed.")
        try:
            ws = analysis.open_workspace(
                root, reader=overlay, home=home, allow_imports_from=allowed
            )
        except ConfigError:
            ws = analysis.new_workspace(overlay, Config(allow_imports_from=allowed), home=home)
    if ws.config.allow_imports_from:
        # The reader confines reads to the root; widen it as Workspace.open does without one.
        overlay.base = LocalReader(root, allowed=ws.config.allow_imports_from)
        if recording is not None:
            recording.usable = False  # what the new reader reads is not recorded
    host = AnalysisHost(ws, replicated=True)
    checked = None
    if check_now:
        try:
            if early is not None:
                try:
                    for found in per_document(host.snapshot(), stop=stop):
                        early(host, found)
                except Cancelled:
                    raise
                except Exception:
                    _log_exception("the per-document findings of %s", root)
            checked = whole_check(host.snapshot(), stop)
        except Cancelled:
            checked = None
        except Exception:
            _log_exception("checking %s failed", root)
    if recording is not None:
        # the check the record is of is done; the workspace outlives the walk's listings
        recording.stop_listing_answers()
    return Opened(host, errors, checked)


def per_document(snap: Snapshot, every: float = EARLY_BATCH_S,
                 stop: CancelToken | None = None) -> Iterator[list[Finding]]:
    """Each instruction file's own findings (`rulemap.checks.document_findings`: those no
    other document changes, finalized), a batch every `every` seconds as the files are parsed
    one by one. A file that is an alias of another (a symlink) is left to the whole check,
    which lints it under its target's name. `stop`: checked before each file (raises
    `Cancelled`)."""
    import time

    from rulemap import analysis, checks

    ws = workspace_of(snap)
    del snap
    analysis.select_profiles(ws)
    batch: list[Finding] = []
    due = time.monotonic() + every
    for key in ws.all_documents():
        if key.startswith("/") or ws.identity(key) != ws.abs(key):
            continue
        if stop is not None:
            stop.check()
        batch += checks.document_findings(ws, key)
        if batch and time.monotonic() >= due:
            yield batch
            batch, due = [], time.monotonic() + every
    if batch:
        yield batch


def replica_builder(snap: Snapshot, buffers: Mapping[str | None, str]) -> Callable[[], Workspace]:
    """What the worker runs to build its copy of the snapshot's workspace (the configuration
    it opened with; the editor's `buffers` by absolute path), for
    `AnalysisHost.attach_replica`: the host logs every change for it meanwhile."""
    from rulemap import analysis

    ws = workspace_of(snap)
    root, config, home = ws.root, ws.config, ws.home
    return lambda: analysis.new_workspace(
        overlay_for(root, buffers, config.allow_imports_from), config, home=home)


def warming(snap: Snapshot) -> Iterator[str]:
    """Parse every document and what it imports, one document (its key) per step, so that
    the first hover does not pay for parsing the whole graph (the caller yields between
    steps). Parses into the host's own workspace, as it goes on changing: a cache filled."""
    from rulemap.model import ImportStatus

    ws = workspace_of(snap)
    del snap  # a held snapshot would fork on the next change
    queue = deque(ws.all_documents())
    seen = set(queue)
    while queue:
        key = queue.popleft()
        try:
            for _, resolved in ws.imports(key):
                target = resolved.target
                if resolved.status is ImportStatus.OK and target not in seen:
                    seen.add(target)
                    queue.append(target)
        except Exception:  # pragma: no cover - parsing never raises; never fail the warm-up
            _log_exception("warming %s", key)
        yield key
