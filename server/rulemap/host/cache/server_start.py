"""The language server's start cache: a folder opened again with nothing changed shows its
last diagnostics while it is walked and checked (the server's side: lsp/start_cache.py).

An entry is keyed by Rulemap's code, the folder, its settings, the user's home and grants and
the client's position encoding, and holds the diagnostics the client was given (LSP JSON, as
the server wrote them) and every question their check asked the disk (readers/recording.py).
`lookup` gives them back when every answer is still the same (`check_store.still_valid`, as
`rulemap check`'s cache decides); `store` writes them after a whole check during which nothing
was edited. The entries live beside `rulemap check`'s (directory.py), never inside a
workspace; `RULEMAP_NO_CACHE=1` turns them off; any failure is a miss.

Light: imported when the server starts, before the engine.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from rulemap.host.cache.directory import ENV_READ, cache_dir, cache_off, entry_name, problem
from rulemap.readers import cache_entries, check_store
from rulemap.readers.recording import Recording
from rulemap.records import record

FORMAT = "rulemap-lsp-start/2"
INIT_FORMAT = "rulemap-lsp-init/1"


@record
class Start:
    """One indexing's use of the cache: its key, the recording of what its check asks (its
    reader records into it), and whether cached diagnostics were shown."""

    key: dict[str, Any]
    recording: Recording
    hit: bool = False

    def note_user_config(self) -> None:
        """Record the user's configuration file, which the check reads (a later edit of it
        is then a miss)."""
        from rulemap.host.user_config import user_config_path

        self.recording.note_user_file(user_config_path()[0])

    @property
    def usable(self) -> bool:
        """Whether the check's answers may still be stored (no file changed while it ran,
        nothing read past the recording)."""
        return self.recording.usable


def start(root: str, overrides: dict[str, Any], home: str, granted: tuple[str, ...],
          encoding: str) -> Start:
    """The cache's use by the indexing of folder `root` with these settings (`overrides`), the
    user's `home`, the editor's `granted` directories and the client's position `encoding`."""
    return Start(start_key(root, overrides, home, granted, encoding), Recording())


def code_key() -> dict[str, Any]:
    """Rulemap's code and the Python running it: any change is a new key."""
    import rulemap

    return {
        "version": rulemap.__version__,
        "code": check_store.code_fingerprint(os.path.dirname(os.path.abspath(rulemap.__file__))),
        "python": [sys.version, sys.executable, *check_store.installed_signatures()],
    }


def start_key(root: str, overrides: dict[str, Any], home: str, granted: tuple[str, ...],
              encoding: str) -> dict[str, Any]:
    return {
        "format": FORMAT,
        **code_key(),
        "root": root,
        "settings": json.loads(json.dumps(overrides, sort_keys=True, default=repr)),
        "home": home,
        "granted": list(granted),
        "encoding": encoding,
        "user": getattr(os, "getuid", lambda: -1)(),
        "env": {name: os.environ.get(name) for name in ENV_READ},
    }


def directory() -> tuple[str | None, tuple[str, str] | None]:
    """The cache directory (None when the cache is off or the directory is not private),
    and when it is not private, that directory and the server's warning about it."""
    if cache_off(os.environ):
        return None, None
    where = cache_dir(os.environ)
    found = problem(where)
    if found is None:
        return where, None
    from rulemap.host.cache.directory import warning

    return None, (where, warning(where, found, "start cache"))


def lookup(where: str, key: dict[str, Any]) -> dict[str, list[Any]] | None:
    """The diagnostics (uri → LSP JSON) stored under `key` in the cache directory `where`,
    when every question their check asked has the same answer now; None otherwise (never
    raises)."""
    if check_store.inside(where, key["root"]):
        return None
    try:
        data = cache_entries.read_entry(where, entry_name(key))
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


def store(where: str, start: Start, root: str, diagnostics: dict[str, list[Any]]) -> None:
    """The entry for `start.key` in the cache directory `where` (nothing when the check saw a
    file change, or `where` lies inside the folder). Raises what encoding or writing
    raises."""
    if not start.recording.usable or check_store.inside(where, root):
        return
    entry = {"format": FORMAT, "key": start.key, "start_ns": start.recording.start_ns,
             "diagnostics": diagnostics, "record": start.recording.to_json()}
    data = json.dumps(entry, separators=(",", ":"), sort_keys=True).encode("ascii")
    cache_entries.write_entry(where, entry_name(start.key), data)


def init_key(params: dict[str, Any]) -> dict[str, Any]:
    """The key of the server's answer to an `initialize` with these `params`: the code and
    every parameter but the client's process id and progress token, which change from one
    start to the next (the answer is made from the client's capabilities and options by the
    code alone)."""
    asked = {name: value for name, value in params.items()
             if name not in ("processId", "workDoneToken")}
    return {"format": INIT_FORMAT, **code_key(), "params": asked,
            "user": getattr(os, "getuid", lambda: -1)()}


def lookup_init(where: str, key: dict[str, Any]) -> dict[str, Any] | None:
    """The `InitializeResult` (LSP JSON) the server gave for `key`, None when none is stored
    (never raises)."""
    try:
        data = cache_entries.read_entry(where, entry_name(key))
        if data is None:
            return None
        entry = json.loads(data)
        if not isinstance(entry, dict) or entry.get("key") != json.loads(json.dumps(key)):
            return None
        result = entry.get("result")
        return result if isinstance(result, dict) else None
    except Exception:  # unreadable, corrupt: a miss, rewritten by the server's answer
        return None


def store_init(where: str, key: dict[str, Any], result: dict[str, Any]) -> None:
    """The server's answer to `initialize` under `key`. Raises what writing raises."""
    data = json.dumps({"key": key, "result": result}, separators=(",", ":"),
                      sort_keys=True).encode("ascii")
    cache_entries.write_entry(where, entry_name(key), data)
