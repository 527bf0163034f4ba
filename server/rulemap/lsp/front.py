"""The server's first moments: the start cache's diagnostics out before pygls is imported.

Importing pygls and lsprotocol (several hundred attrs classes) takes 0.4–0.7 s, more than the
whole budget of a start from the cache (issue #37: 300 ms). So `rulemap serve --stdio` reads
the first messages itself, with only the standard library and the cache's light modules:

- `initialize`: answered with the answer the full server gave last time to the same
  parameters from the same code (host/cache/server_start.py, `lookup_init`); when there is
  none, nothing more is done here, and the full server's answer is stored for next time;
- `initialized`: the folder's settings pulled as the server pulls them (one
  `workspace/configuration` request), the start cache's entry looked up and validated, and
  its diagnostics published as they were stored (LSP JSON).

Then the full server takes over (`handover`): it reads the messages consumed here again,
first of all (its answer to the replayed `initialize`, the same as the cached one, is not
sent twice), and its indexing records the published diagnostics as given
(`published_for`) instead of publishing them again. Anything unexpected (another message
first, a pull client, several folders, a settings error, an answer late by more than
`WAIT_S`) ends this early and hands everything over unchanged. Light: the standard library
and rulemap.host.cache.server_start only.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import select
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, cast
from urllib.parse import quote, unquote_to_bytes, urlparse

from rulemap.host.cache import server_start

WAIT_S = 5.0  # the server waits this long for workspace/configuration too
MAX_HEADER = 1024
MAX_BODY = 1024 * 1024  # larger: not an `initialize` to answer here (framing.py's reader)
_CONFIG_ID = "rulemap-start-configuration"

# (start key, uri → diagnostics) published here; read once by the first indexing
_published: list[tuple[dict[str, Any], dict[str, list[Any]]]] = []


def path_of(uri: str) -> str | None:
    """The absolute POSIX path of a `file:` URI (None for `untitled:` and other schemes)."""
    try:
        parsed = urlparse(uri)
    except ValueError:
        return None
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    # from the bytes, as uri_for quotes them: `%FF` is back the name's byte (a surrogate), not
    # U+FFFD, so a file whose name is not valid UTF-8 keeps one URI both ways
    path = os.fsdecode(unquote_to_bytes(parsed.path))
    if not path.startswith("/") or "\x00" in path:
        return None
    return posixpath.normpath(path)


def published_for(key: dict[str, Any]) -> dict[str, list[Any]] | None:
    """The diagnostics published here for the start `key` (taken: asked once), else None."""
    for index, (published_key, diagnostics) in enumerate(_published):
        if published_key == key:
            del _published[index]
            return diagnostics
    return None


class _Input:
    """Messages read off a file descriptor, each kept as the bytes it came in."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.kept: list[bytes] = []  # the raw messages the full server is to read again

    def next(self, timeout: float | None) -> tuple[bytes, dict[str, Any]] | None:
        """The next message (its bytes, its JSON), None when it is not a well-formed JSON
        object or does not come in time (what was read stays in `buffer`)."""
        while True:
            found = self._parse()
            if found is not None:
                return found
            if len(self.buffer) > MAX_HEADER and b"\r\n\r\n" not in self.buffer:
                return None
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk

    def _parse(self) -> tuple[bytes, dict[str, Any]] | None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        length = None
        for line in self.buffer[:end].split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length" and value.strip().isdigit():
                length = int(value.strip())
        if length is None or length > MAX_BODY:
            raise ValueError("no Content-Length, or one this reader leaves to the server")
        total = end + 4 + length
        if len(self.buffer) < total:
            return None
        raw = self.buffer[:total]
        message = json.loads(raw[end + 4:])
        if not isinstance(message, dict):
            raise ValueError("not a JSON object")
        self.buffer = self.buffer[total:]
        return raw, message

    def rest(self) -> bytes:
        return b"".join(self.kept) + self.buffer


class Replay:
    """The full server's input: what was read here, then the stream."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head = head
        self.stream = stream

    def read1(self, size: int = -1) -> bytes:
        if self.head:
            data, self.head = self.head, b""
            return data
        read: Callable[[int], bytes] = getattr(self.stream, "read1", self.stream.read)
        return read(size)

    read = read1


class Output:
    """The full server's output: its answer to the `initialize` answered here is left out;
    when none was, the answer is stored for the next start."""

    def __init__(self, stream: BinaryIO, init_id: Any, answered: bool,
                 store: Callable[[dict[str, Any]], None] | None) -> None:
        self.stream = stream
        self.init_id = init_id
        self.answered = answered
        self.store = store

    def write(self, data: bytes) -> int:
        if self.init_id is not None:
            body = data[data.find(b"\r\n\r\n") + 4:]
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            if isinstance(message, dict) and message.get("id") == self.init_id \
                    and "method" not in message:
                self.init_id = None
                result = message.get("result")
                if self.store is not None and isinstance(result, dict):
                    with contextlib.suppress(Exception):  # never fail for the cache's sake
                        self.store(result)
                if self.answered:
                    return len(data)
        return self.stream.write(data)

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def _send(out: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _get(obj: Any, *path: str) -> Any:
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def _encoding(params: dict[str, Any]) -> str:
    """The position encoding the server settles on (server.py's RulemapProtocol)."""
    general = _get(params, "capabilities", "general")
    if not isinstance(general, dict):
        return "utf-16"
    offered = general.get("positionEncodings") or []
    return "utf-8" if isinstance(offered, list) and "utf-8" in offered else "utf-16"


def _folder(params: dict[str, Any]) -> tuple[str, str] | None:
    """(uri, path) of the one folder the client opened (None: none, several, not local)."""
    folders = params.get("workspaceFolders")
    if folders:
        if not isinstance(folders, list) or len(folders) != 1 or \
                not isinstance(folders[0], dict):
            return None
        uri = folders[0].get("uri")
    else:
        uri = params.get("rootUri")
    path = path_of(uri) if isinstance(uri, str) else None
    if path is None:
        return None
    from rulemap.host.text import path_bytes

    return "file://" + quote(path_bytes(path), safe="/"), path


def _init_options(params: dict[str, Any]) -> dict[str, Any] | None:
    options = params.get("initializationOptions")
    if options is None:
        return {}
    if not isinstance(options, dict):
        return None
    section = options.get("rulemap")
    return section if isinstance(section, dict) else options


def handover(fd: int | None = None, out: BinaryIO | None = None,
             stream: BinaryIO | None = None) -> tuple[BinaryIO, BinaryIO] | None:
    """Read the first messages of stdin (`fd`), publish the start cache's diagnostics when
    they hold, and give the full server's input and output; None when the cache is off (the
    server reads and writes stdin and stdout as they are)."""
    where, _ = server_start.directory()
    if where is None or os.name != "posix":
        return None
    fd = sys.stdin.fileno() if fd is None else fd
    out = sys.stdout.buffer if out is None else out
    stream = sys.stdin.buffer if stream is None else stream
    source = _Input(fd)
    state = _State()
    with contextlib.suppress(ValueError, OSError):
        _front(source, out, where, state)  # else the full server reads it all again
    out.flush()
    output = Output(out, state.init_id, state.answered, state.store)
    return cast(BinaryIO, Replay(source.rest(), stream)), cast(BinaryIO, output)


class _State:
    """How far the start went: the `initialize` read (its id), whether it was answered
    here, and how to store the full server's answer when it was not."""

    init_id: Any = None
    answered = False
    store: Callable[[dict[str, Any]], None] | None = None


def _front(source: _Input, out: BinaryIO, where: str, state: _State) -> None:
    found = source.next(None)
    if found is None:
        return
    raw, message = found
    source.kept.append(raw)
    params = message.get("params")
    if message.get("method") != "initialize" or "id" not in message or \
            not isinstance(params, dict):
        return
    state.init_id = message["id"]
    key = server_start.init_key(params)
    result = server_start.lookup_init(where, key)
    if result is None:
        state.store = lambda answer: server_start.store_init(where, key, answer)
        return
    state.answered = True
    _send(out, {"jsonrpc": "2.0", "id": state.init_id, "result": result})
    out.flush()
    found = source.next(WAIT_S)
    if found is None:
        return
    raw, message = found
    source.kept.append(raw)
    if message.get("method") == "initialized":
        _publish(source, out, where, params)


def _publish(source: _Input, out: BinaryIO, where: str, params: dict[str, Any]) -> None:
    """After `initialized`: the start cache's diagnostics, when this start is one the
    server's indexing would publish them for (lsp/start_cache.py, `begin`)."""
    folder = _folder(params)
    init_options = _init_options(params)
    if folder is None or init_options is None or \
            _get(params, "capabilities", "textDocument", "diagnostic") is not None:
        return
    uri, root = folder
    from rulemap.host import disk

    home = disk.real_path(disk.home_dir())
    real = disk.real_path(root)
    if real in ("/", home) or not disk.is_dir(root):
        return
    scoped = None
    if _get(params, "capabilities", "workspace", "configuration"):
        _send(out, {"jsonrpc": "2.0", "id": _CONFIG_ID, "method": "workspace/configuration",
                    "params": {"items": [{"scopeUri": uri, "section": "rulemap"}]}})
        out.flush()
        found = source.next(WAIT_S)
        if found is None:
            return
        raw, message = found
        if message.get("id") != _CONFIG_ID or "method" in message:
            source.kept.append(raw)  # (a didOpen, a request): the server's to read
            return
        answer = message.get("result")
        if isinstance(answer, list) and answer:
            scoped = answer[0]
    from rulemap.lsp.settings import folder_settings

    _raw, settings, errors = folder_settings(init_options, {}, scoped)
    if errors:
        return
    key = server_start.start_key(root, dict(settings.overrides), home,
                                 settings.allow_imports_from, _encoding(params))
    cached = server_start.lookup(where, key)
    if not cached:
        return
    for document, items in cached.items():
        _send(out, {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                    "params": {"uri": document, "diagnostics": items}})
    name = posixpath.basename(root) or root
    named = _get(params, "workspaceFolders")
    if isinstance(named, list) and named and isinstance(named[0].get("name"), str) \
            and named[0]["name"]:
        name = named[0]["name"]
    said = f"Rulemap: {name}: the last diagnostics of {len(cached)} documents, " \
        "from the cache, until the check is done"
    _send(out, {"jsonrpc": "2.0", "method": "window/logMessage",
                "params": {"type": 4, "message": said}})
    out.flush()
    _published.append((key, cached))
