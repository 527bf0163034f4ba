"""The language server's start from the check cache: a folder opened again with nothing
changed shows its last diagnostics while it is walked and checked.

When a folder is indexed with nothing of it open (the editor starting), its last whole check
is looked up first (host/cache/server_start.py: the entry, its key, whether every question
that check asked the disk still has the same answer). When it holds, the diagnostics the
client was given then are published at once; the walk and the check run as always after it
and replace them (the ledger sends only what differs). The check records its questions, and
the diagnostics it led to are stored when nothing was edited while it ran. This module is the
server's side: the diagnostics to and from LSP JSON, the publish, the one log line when the
cache directory is not the user's alone. Usually they are out before the server is even
imported (lsp/front.py); `begin` then records them as given.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

import cattrs
from lsprotocol import types
from lsprotocol.converters import get_converter

from rulemap.host.cache import server_start
from rulemap.host.cache.server_start import Start
from rulemap.lsp import front

if TYPE_CHECKING:
    from rulemap.lsp.engine_core import EngineCore
    from rulemap.lsp.folders import Folder

__all__ = ["Start", "begin", "diagnostic_from_json", "finish"]

log = logging.getLogger("rulemap.lsp")


@functools.cache
def _converter() -> cattrs.Converter:
    # made when first needed (a diagnostic the hand decoding below does not cover, or the
    # store after the check): building cattrs' converter took ~30 ms of every start
    return get_converter()


def _directory() -> str | None:
    """The cache directory, None when the cache is off or the directory is not private (the
    user's own, writable by no one else: docs/security.md), which is logged once."""
    directory, refused = server_start.directory()
    if refused is not None and refused[0] not in _refused:
        _refused.add(refused[0])
        log.warning("%s", refused[1])
    return directory


_refused: set[str] = set()  # directories already warned about


def lookup(key: dict[str, Any]) -> dict[str, list[Any]] | None:
    """In the worker: the diagnostics (uri → LSP JSON) stored under `key`, when every
    question their check asked has the same answer now; None otherwise."""
    directory = _directory()
    return None if directory is None else server_start.lookup(directory, key)


def store(start: Start, root: str, diagnostics: dict[str, list[Any]]) -> None:
    """In the worker: the entry for `start.key` (nothing when the cache is off, the check
    saw a file change, or the cache directory lies inside the folder)."""
    directory = _directory()
    if directory is None:
        return
    try:
        server_start.store(directory, start, root, diagnostics)
    except Exception:  # never fail the server for the cache's sake
        log.exception("storing the start cache of %s", root)


async def begin(engine: EngineCore, folder: Folder, overrides: dict[str, Any]) -> Start | None:
    """Before a folder with nothing open is indexed: publish its cached diagnostics when
    they still hold, and give the recording its check is to make (None: the cache is off)."""
    if _directory() is None:
        return None
    start = server_start.start(folder.root, overrides, engine.home,
                               folder.settings.allow_imports_from, engine.encoding)
    early = front.published_for(start.key)
    if early is not None:
        # published before the server was imported (lsp/front.py): the ledger learns what
        # the client shows, so the check's publish replaces each of them
        for uri, items in early.items():
            engine.ledger.remember(uri, [diagnostic_from_json(item) for item in items])
    try:
        cached = await engine.loop.run_in_executor(engine.executor, lookup, start.key)
    except Exception:
        cached = None
    if cached and not engine.closed:
        changed = False
        for uri, items in cached.items():
            diagnostics = [diagnostic_from_json(item) for item in items]
            changed = engine.set_diagnostics(uri, diagnostics, engine.version_of(uri)) or changed
        start.hit = True
        if early is not None and not changed:
            start.note_user_config()
            return start  # said when they were published
        said = f"Rulemap: {folder.name}: the last diagnostics of {len(cached)} documents, " \
            "from the cache, until the check is done"
        log.info("%s", said)
        engine.port.notify("window/logMessage",
                           types.LogMessageParams(type=types.MessageType.Log, message=said))
        if changed:
            engine.ledger.wake()
            if engine.ledger.pull:
                engine.ledger.schedule_refresh()
    # after the cached diagnostics are out (it imports the walk's reader); before the check,
    # which reads the file
    start.note_user_config()
    return start


_DIAGNOSTIC_KEYS = frozenset({"range", "message", "severity", "code", "codeDescription",
                              "source", "relatedInformation", "tags", "data"})


def diagnostic_from_json(item: dict[str, Any]) -> types.Diagnostic:
    """A stored diagnostic back as lsprotocol's type: by hand for the fields Rulemap writes
    (cattrs takes ~0.1 ms a diagnostic: 40 ms of the start on the 20,000-file monorepo), by
    the converter for anything else."""
    if not _DIAGNOSTIC_KEYS.issuperset(item) or item.get("relatedInformation") \
            or not isinstance(item.get("range"), dict):
        return _converter().structure(item, types.Diagnostic)
    try:
        start, end = item["range"]["start"], item["range"]["end"]
        href = (item.get("codeDescription") or {}).get("href")
        return types.Diagnostic(
            range=types.Range(start=types.Position(line=start["line"],
                                                   character=start["character"]),
                              end=types.Position(line=end["line"], character=end["character"])),
            message=item["message"],
            severity=types.DiagnosticSeverity(item["severity"]) if "severity" in item else None,
            code=item.get("code"),
            code_description=types.CodeDescription(href=href) if href is not None else None,
            source=item.get("source"),
            tags=[types.DiagnosticTag(t) for t in item["tags"]] if item.get("tags") else None,
            data=item.get("data"))
    except (KeyError, TypeError, ValueError):
        return _converter().structure(item, types.Diagnostic)


def finish(engine: EngineCore, folder: Folder, start: Start, quiet: bool) -> None:
    """After the first whole check of an indexing was published: store what the client was
    given for the folder (`quiet`: nothing was edited or changed on disk while it ran)."""
    if not quiet or not start.usable:
        return
    prefix = folder.uri + "/"
    given = {uri: list(state.diagnostics) for uri, state in engine.ledger.docs.items()
             if uri.startswith(prefix) and state.diagnostics}
    engine.loop.run_in_executor(engine.executor, _store_given, start, folder.root, given)


def _store_given(start: Start, root: str, given: dict[str, list[types.Diagnostic]]) -> None:
    """In the worker: the diagnostics given, as JSON, stored. cattrs' converter (built here
    the first time, ~80 ms) and the conversion of 1,300 diagnostics took ~150 ms of the loop
    right when the first wave went out, on the 400-level deep tree; the diagnostics are never
    changed once given, so the worker may read them."""
    store(start, root, {uri: [_converter().unstructure(d) for d in items]
                        for uri, items in given.items()})
