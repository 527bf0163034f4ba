"""Opening a folder's host for the server (in the worker thread), and warming it.

`open_folder` reads the user's grants and hands the rest to the host (`rulemap.host.opening`:
the walk, the configuration — its defaults on an error, returned as a message —, the first
whole check); `make_replica` is what the worker runs for the host's replica; `warm` parses
every document on the loop's host a few milliseconds at a time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulemap.lsp import heap

if TYPE_CHECKING:  # the engine is imported when a folder is indexed, not at start-up
    from rulemap.host import AnalysisHost
    from rulemap.host.cancel import CancelToken
    from rulemap.host.checking import Checked
    from rulemap.host.text import Encoding
    from rulemap.lsp.engine_core import EngineCore
    from rulemap.lsp.folders import Folder
    from rulemap.model import Document, Finding

log = logging.getLogger("rulemap.lsp")
WARM_SLICE_S = 0.004  # the start-up parse of the loop's copy yields this often


def open_folder(
    root: str,
    overrides: dict[str, Any],
    buffers: Mapping[str | None, str],
    home: str,
    check_now: bool = False,
    granted: tuple[str, ...] = (),
    recording: Any = None,
    early: Callable[[AnalysisHost, list[Finding]], None] | None = None,
    stop: CancelToken | None = None,
    encoding: Encoding = "utf-16",
) -> tuple[AnalysisHost | None, list[str], Checked | None, Converted | None]:
    """Runs in the worker: walk the folder, read its configuration, check it if asked.

    Imports may leave the folder only for what the user grants: `granted` (the editor's
    user-level `allowImportsFrom`, from initializationOptions) and the user's configuration
    file, read here; never the folder's own `allowImportsFrom`. `recording`: the start
    cache's (lsp/start_cache.py); `early`: `publish_early`'s; `stop`: cancelled by an edit
    made meanwhile, it hands the host over without its whole check (`Folder.walk_stop`).
    The whole check's diagnostics come converted in the client's `encoding` (`Converted`)."""
    from rulemap.host.opening import open_folder as opened
    from rulemap.host.settings import ConfigError
    from rulemap.host.user_config import merge_grants, read_user_grants

    errors: list[str] = []
    try:
        from_file = read_user_grants()
    except ConfigError as exc:
        errors.append(f"user configuration error: {exc}; ignoring that file")
        from_file = ()
    allowed = merge_grants(from_file, granted)
    with heap.building():
        found = opened(root, overrides, buffers, home, allowed, check_now, recording, early,
                       stop)
        given = (converted(found.host, found.checked, encoding)
                 if found.host is not None and found.checked is not None else None)
    return found.host, [*errors, *found.errors], found.checked, given


@dataclass(frozen=True)
class Converted:
    """The walk's whole check as the client is to be given it, made in the worker while it
    still owns the host (`publishing._publish` takes a document's diagnostics from here when
    its findings and text are still the very ones): each document's URI, and each document
    with findings, its findings, its text and their diagnostics. On the 400-level tree the
    loop's step that takes the host (3,773 URIs quoted, their findings converted) went from
    166 to 40-49 ms (benchmarks/README.md)."""

    uris: dict[str, str]
    diagnostics: dict[str, tuple[list[Finding], Document, list[Any]]]


def converted(host: AnalysisHost, checked: Checked, encoding: Encoding) -> Converted:
    """`Converted` of the host's whole check `checked` (in the worker, before the loop has
    the host)."""
    from rulemap.lsp.diagnostics import to_diagnostics, uri_for

    snap = host.snapshot()
    by_key = _by_key(checked.all)
    uris: dict[str, str] = {}
    diagnostics: dict[str, tuple[list[Finding], Document, list[Any]]] = {}
    for key in {*snap.lint_documents(), *by_key}:
        if key.startswith("/"):
            continue
        uris[key] = uri_for(snap.abs(key))
        found = by_key.get(key)
        if found:
            diagnostics[key] = (found, snap.document(key),
                                to_diagnostics(snap, key, found, encoding))
    return Converted(uris, diagnostics)


def _by_key(findings: list[Finding]) -> dict[str, list[Finding]]:
    """Findings by the document they are in, in order (as the host's `Findings` keeps a whole
    check's: `publishing._publish` compares them object by object)."""
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.path, []).append(finding)
    return grouped


def publish_early(engine: EngineCore, folder: Folder,
                  epoch: int) -> Callable[[AnalysisHost, list[Finding]], None]:
    """What the worker hands a first indexing's per-document findings to, before the whole
    check (rulemap.host.opening): converted there, published on the loop, unless the start
    cache's diagnostics are out (all of them: a part would replace them), the indexing is
    over or replaced, or a document is open (its buffer is not what was checked). The whole
    check's publish then replaces them, through the ledger."""
    def in_worker(host: AnalysisHost, findings: list[Finding]) -> None:
        if folder.start is not None and folder.start.hit:
            return
        from rulemap.lsp.diagnostics import to_diagnostics, uri_for

        snap = host.snapshot()
        converted = [(uri_for(snap.abs(key)), to_diagnostics(snap, key, found, engine.encoding))
                     for key, found in sorted(_by_key(findings).items())
                     if not key.startswith("/")]
        del snap
        engine.loop.call_soon_threadsafe(on_loop, converted)

    def on_loop(converted: list[tuple[str, list[Any]]]) -> None:
        if engine.closed or epoch != folder.epoch or not folder.indexing:
            return
        changed = False
        for uri, diagnostics in converted:
            if engine.version_of(uri) is None:  # not open (an open one has a version)
                changed = engine.set_diagnostics(uri, diagnostics, None) or changed
        if changed:
            engine.ledger.wake()
            if engine.ledger.pull:
                engine.ledger.schedule_refresh()

    return in_worker


def make_replica(host: AnalysisHost, buffers: Mapping[str | None, str]) -> Callable[[], Any]:
    """What the worker runs to build the host's replica (`AnalysisHost.attach_replica`)."""
    from rulemap.host.opening import replica_builder

    build = replica_builder(host.snapshot(), buffers)

    def built() -> Any:
        with heap.building():
            return build()

    return built


async def warm(host: AnalysisHost, current: Callable[[], bool]) -> None:
    """Parse every document and what it imports, a few milliseconds at a time, so that the
    first hover does not pay for parsing the whole graph. Stops when `current()` is False."""
    from rulemap.host.opening import warming

    steps = warming(host.snapshot())
    budget = time.monotonic() + WARM_SLICE_S
    while current():
        if next(steps, None) is None:
            return
        if time.monotonic() > budget:
            await asyncio.sleep(0)  # let requests in
            budget = time.monotonic() + WARM_SLICE_S
