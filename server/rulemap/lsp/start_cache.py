"""The language server's start from the check cache: a folder opened again with nothing
changed shows its last diagnostics while it is walked and checked.

When a folder is indexed with nothing of it open (the editor starting), its last whole check
is looked up first: an entry keyed by Rulemap's code, the folder, its settings, the user's
home and grants and the client's position encoding, holding the diagnostics the client was
given and every question that check asked the disk (readers/recording.py). When every answer
is still the same (`check_store.still_valid`, as `rulemap check`'s cache decides), those
diagnostics are published at once; the walk and the check run as always after it and
replace them (the ledger sends only what differs). The check records its questions, and the
diagnostics it led to are stored when nothing was edited while it ran. The entries live
beside `rulemap check`'s (`$RULEMAP_CACHE_DIR`, else `$XDG_CACHE_HOME/rulemap`), never
inside a workspace; `RULEMAP_NO_CACHE=1` turns it off; any failure is a miss.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cattrs
from lsprotocol import types
from lsprotocol.converters import get_converter

from rulemap.readers import cache_entries, check_store
from rulemap.readers.recording import Recording

if TYPE_CHECKING:
    from rulemap.lsp.folders import Folder
    from rulemap.lsp.state import Engine

log = logging.getLogger("rulemap.lsp")
FORMAT = "rulemap-lsp-start/2"


@functools.cache
def _converter() -> cattrs.Converter:
    # made when first needed (a diagnostic the hand decoding below does not cover, or the
    # store after the check): building cattrs' converter took ~30 ms of every start
    return get_converter()


@dataclass
class Start:
    """One indexing's use of the cache: its key, the recording of what its check asks, and
    whether cached diagnostics were shown."""

    key: dict[str, Any]
    recording: Recording
    hit: bool = False


def start_key(root: str, overrides: dict[str, Any], home: str, granted: tuple[str, ...],
              encoding: str) -> dict[str, Any]:
    import rulemap
    from rulemap.cli.check_cache import ENV_READ

    return {
        "format": FORMAT,
        "version": rulemap.__version__,
        "code": check_store.code_fingerprint(os.path.dirname(os.path.abspath(rulemap.__file__))),
        "python": [sys.version, sys.executable, *check_store.installed_signatures()],
        "root": root,
        "settings": json.loads(json.dumps(overrides, sort_keys=True, default=repr)),
        "home": home,
        "granted": list(granted),
        "encoding": encoding,
        "user": getattr(os, "getuid", lambda: -1)(),
        "env": {name: os.environ.get(name) for name in ENV_READ},
    }


def _directory() -> str | None:
    """The cache directory, None when the cache is off or the directory is not private (the
    user's own, writable by no one else: docs/security.md), which is logged once."""
    from rulemap.cli.check_cache import DIR_ENV, cache_dir, cache_off

    if cache_off(os.environ):
        return None
    directory = cache_dir(os.environ)
    problem = cache_entries.directory_problem(directory)
    if problem is None:
        return directory
    if directory not in _refused:
        _refused.add(directory)
        log.warning("%s", cache_entries.not_used(directory, problem, "start cache", DIR_ENV))
    return None


_refused: set[str] = set()  # directories already warned about


def _name(key: dict[str, Any]) -> str:
    return cache_entries.entry_name(
        check_store.digest(json.dumps(key, sort_keys=True).encode("ascii")))


def lookup(key: dict[str, Any]) -> dict[str, list[Any]] | None:
    """In the worker: the diagnostics (uri → LSP JSON) stored under `key`, when every
    question their check asked has the same answer now; None otherwise."""
    directory = _directory()
    if directory is None or check_store.inside(directory, key["root"]):
        return None
    try:
        data = cache_entries.read_entry(directory, _name(key))
        if data is None:
            return None
        entry = json.loads(data)
        if not isinstance(entry, dict) or entry.get("format") != FORMAT:
            return None
        if entry.get("key") != json.loads(json.dumps(key, sort_keys=True)):
            return None
        diagnostics = entry["diagnostics"]
        if not isinstance(diagnostics, dict):
            return None
        if not check_store.still_valid(entry["record"], entry["start_ns"]):
            return None
        return diagnostics
    except Exception:  # unreadable, corrupt, of another shape: a miss, rewritten later
        return None


def store(start: Start, root: str, diagnostics: dict[str, list[Any]]) -> None:
    """In the worker: the entry for `start.key` (nothing when the cache is off, the check
    saw a file change, or the cache directory lies inside the folder)."""
    directory = _directory()
    if directory is None or not start.recording.usable or check_store.inside(directory, root):
        return
    entry = {"format": FORMAT, "key": start.key, "start_ns": start.recording.start_ns,
             "diagnostics": diagnostics, "record": start.recording.to_json()}
    try:
        data = json.dumps(entry, separators=(",", ":"), sort_keys=True).encode("ascii")
        cache_entries.write_entry(directory, _name(start.key), data)
    except Exception:  # never fail the server for the cache's sake
        log.exception("storing the start cache of %s", root)


async def begin(engine: Engine, folder: Folder, overrides: dict[str, Any]) -> Start | None:
    """Before a folder with nothing open is indexed: publish its cached diagnostics when
    they still hold, and give the recording its check is to make (None: the cache is off)."""
    from rulemap.host.user_config import user_config_path

    if _directory() is None:
        return None
    key = start_key(folder.root, overrides, engine.home, folder.settings.allow_imports_from,
                    engine.encoding)
    start = Start(key, Recording())
    try:
        cached = await engine.loop.run_in_executor(engine.executor, lookup, key)
    except Exception:
        cached = None
    if cached and not engine.closed:
        changed = False
        for uri, items in cached.items():
            diagnostics = [diagnostic_from_json(item) for item in items]
            changed = engine._set_diagnostics(uri, diagnostics, engine._version(uri)) or changed
        start.hit = True
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
    start.recording.note_user_file(user_config_path()[0])
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


def finish(engine: Engine, folder: Folder, start: Start, quiet: bool) -> None:
    """After the first whole check of an indexing was published: store what the client was
    given for the folder (`quiet`: nothing was edited or changed on disk while it ran)."""
    if not quiet or not start.recording.usable:
        return
    prefix = folder.uri + "/"
    diagnostics = {
        uri: [_converter().unstructure(d) for d in state.diagnostics]
        for uri, state in engine.ledger.docs.items()
        if uri.startswith(prefix) and state.diagnostics
    }
    engine.loop.run_in_executor(engine.executor, store, start, folder.root, diagnostics)
