"""The server's first messages read before pygls is imported (lsp/front.py): `initialize`
answered as the full server answered it last time, the start cache's diagnostics published
after `initialized`, and everything read handed to the full server, which then knows what the
client was given."""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from tests.lsp.conftest import write
from tests.lsp.quiet_port import QuietPort

from rulemap.host.cache import server_start
from rulemap.host.cache.server_start import Start
from rulemap.lsp import front
from rulemap.lsp.settings import folder_settings
from rulemap.lsp.state import Engine
from rulemap.readers.recording import Recording

INIT_RESULT = {"capabilities": {"hoverProvider": True}, "serverInfo": {"name": "rulemap"}}
ITEM = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}},
        "message": "stale", "severity": 2, "code": "broken-import", "source": "rulemap"}


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def messages(data: bytes) -> list[dict[str, Any]]:
    found = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = int(head.split(b":")[1])
        found.append(json.loads(rest[:length]))
        data = rest[length:]
    return found


def init_params(root: Path, configuration: bool = True) -> dict[str, Any]:
    return {"processId": 1, "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": "repo"}],
            "capabilities": {"workspace": {"configuration": configuration}},
            "initializationOptions": {"diagnostics": {"debounceMs": 0}}}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    where = tmp_path / "cache"
    monkeypatch.setenv("RULEMAP_CACHE_DIR", str(where))
    monkeypatch.delenv("RULEMAP_NO_CACHE", raising=False)
    yield str(where)
    front._published.clear()


def run(data: bytes) -> tuple[bytes, list[dict[str, Any]], Any]:
    """`handover` over a pipe holding `data`: (what the full server reads first, what was
    written to the client, the full server's output)."""
    read, written = os.pipe()
    os.write(written, data)
    os.close(written)
    out = io.BytesIO()
    with os.fdopen(read, "rb") as stream:
        streams = front.handover(read, out, stream)
        assert streams is not None
        replay, output = streams
        head = replay.read1(1 << 20)
        rest = replay.read1(1 << 20)
    return head + rest, messages(out.getvalue()), output


def _answered_before(tmp_path: Path, cache: str) -> tuple[Path, dict[str, Any]]:
    """A one-file repository whose `initialize` the start cache has answered before: the
    repository and the parameters of that request."""
    repo = tmp_path / "repo"
    write(repo, {"AGENTS.md": "# hi\n"})
    params = init_params(repo)
    server_start.store_init(cache, server_start.init_key(params), INIT_RESULT)
    return repo, params


def store_start(repo: Path, diagnostics: dict[str, list[Any]], scoped: Any = None) -> None:
    """A start entry for `repo` as the server would key it for `init_params`."""
    raw, settings, _ = folder_settings({"diagnostics": {"debounceMs": 0}}, {}, scoped)
    from rulemap.host import disk

    key = server_start.start_key(str(repo), dict(settings.overrides),
                                 disk.real_path(disk.home_dir()),
                                 settings.allow_imports_from, "utf-16")
    where, _ = server_start.directory()
    assert where is not None
    server_start.store(where, Start(key, Recording()), str(repo), diagnostics)


def test_a_first_start_hands_everything_over_and_keeps_the_server_s_answer(
    tmp_path: Path, cache: str,
) -> None:
    params = init_params(tmp_path)
    initialize = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    replayed, written, output = run(initialize + frame({"jsonrpc": "2.0",
                                                        "method": "initialized"}))
    assert replayed == initialize + frame({"jsonrpc": "2.0", "method": "initialized"})
    assert written == []
    answer = frame({"jsonrpc": "2.0", "id": 1, "result": INIT_RESULT})
    assert output.write(answer) == len(answer)  # passed on, and kept for the next start
    # the next start answers it from the cache, and the server's own answer is left out
    replayed, written, output = run(initialize)
    assert written == [{"jsonrpc": "2.0", "id": 1, "result": INIT_RESULT}]
    assert replayed == initialize
    sink = io.BytesIO()
    output.stream = sink
    output.write(answer)
    other = frame({"jsonrpc": "2.0", "method": "window/logMessage", "params": {}})
    output.write(other)
    assert sink.getvalue() == other


def test_diagnostics_from_the_cache_before_the_server_is_imported(
    tmp_path: Path, cache: str,
) -> None:
    repo, params = _answered_before(tmp_path, cache)
    agents = (repo / "AGENTS.md").as_uri()
    store_start(repo, {agents: [ITEM]})
    initialize = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    initialized = frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    # the client answers the configuration request once it is sent: here, already queued
    answer = frame({"jsonrpc": "2.0", "id": "rulemap-start-configuration", "result": [None]})
    later = frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    replayed, written, _ = run(initialize + initialized + answer + later)
    assert [m.get("method") for m in written] == [
        None, "workspace/configuration", "textDocument/publishDiagnostics", "window/logMessage"]
    assert written[1]["params"]["items"] == [{"scopeUri": repo.as_uri(), "section": "rulemap"}]
    assert written[2]["params"] == {"uri": agents, "diagnostics": [ITEM]}
    # the server reads again all but the answer to the request it never sent
    assert replayed == initialize + initialized + later
    assert list(front._published[0][1]) == [agents]


def test_anything_before_the_configuration_answer_stops_the_early_publish(
    tmp_path: Path, cache: str,
) -> None:
    repo, params = _answered_before(tmp_path, cache)
    store_start(repo, {(repo / "AGENTS.md").as_uri(): [ITEM]})
    head = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}) + \
        frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    opened = frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}})
    replayed, written, _ = run(head + opened)
    assert [m.get("method") for m in written] == [None, "workspace/configuration"]
    assert replayed == head + opened
    assert front._published == []


@pytest.mark.parametrize("data", [
    b"Content-Length: nope\r\n\r\n{}",
    b"Content-Length: 99999999999999\r\n\r\n",
    frame({"jsonrpc": "2.0", "id": 3, "method": "rulemap/profiles"}),
    b"Content-Length: 5\r\n\r\n[1,2]",
], ids=["not-a-number", "huge", "not-initialize", "not-an-object"])
def test_what_is_not_an_initialize_goes_to_the_server_unchanged(
    cache: str, data: bytes,
) -> None:
    replayed, written, output = run(data)
    assert replayed == data and written == []
    assert not output.answered


class _Port(QuietPort):
    published: list[tuple[str, list[types.Diagnostic]]]


def test_what_was_published_early_and_holds_no_more_is_cleared_by_the_check(
    tmp_path: Path, cache: str,
) -> None:
    """The entry held when the front published it, then a file changed: the server's own
    look-up misses, and the whole check clears the stale diagnostics (it knows they were
    given) and publishes nothing twice."""
    repo = tmp_path / "repo"
    write(repo, {".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "# hi\n",
                 "src/a.ts": "export const a = 1;\n",
                 "docs/a.md": "# a\n\nSee @docs/missing.md\n", "CLAUDE.md": "@docs/a.md\n"})

    async def index() -> tuple[_Port, Any]:
        port = _Port()
        engine = Engine(port, asyncio.get_running_loop())
        engine.init_options = {"diagnostics": {"debounceMs": 0}}
        folder = engine.add_folder(repo.as_uri())
        assert folder is not None
        await engine.load_settings([folder], pull=False)
        key = server_start.start_key(folder.root, dict(folder.settings.overrides),
                                     engine.home, folder.settings.allow_imports_from,
                                     engine.encoding)
        front._published.append((key, {(repo / "AGENTS.md").as_uri(): [ITEM],
                                        (repo / "src/a.ts").as_uri(): [ITEM]}))
        await engine.index(folder)
        engine.close()
        return port, folder

    port, folder = asyncio.run(index())
    last = {uri: [d.message for d in ds] for uri, ds in port.published}
    assert last[(repo / "src/a.ts").as_uri()] == []  # the stale one cleared
    assert "stale" not in last[(repo / "AGENTS.md").as_uri()]  # … or replaced
    uris = [uri for uri, _ in port.published]
    assert len(uris) == len(set(uris))
    assert front._published == []  # taken by the indexing
    assert any(d.code == "broken-import" for uri, ds in port.published for d in ds)


def test_a_cold_start_publishes_each_document_s_own_findings_before_the_whole_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the start cache, the per-document findings go out while the whole check
    (held here for half a second) still runs; then the whole check's replace them."""
    monkeypatch.setenv("RULEMAP_NO_CACHE", "1")
    repo = tmp_path / "repo"
    write(repo, {".git/HEAD": "ref: refs/heads/main\n",
                 "AGENTS.md": "# hi\n\nRead @docs/missing.md first.\n",
                 "CLAUDE.md": "@docs/a.md\n", "docs/a.md": "# a\n\n@b.md\n",
                 "docs/b.md": "# b\n\n@a.md\n"})
    from rulemap.host import opening

    checked_at: list[float] = []
    whole_check = opening.whole_check

    def slow_check(snap: Any, stop: Any = None) -> Any:
        import time

        time.sleep(0.5)
        try:
            return whole_check(snap, stop)
        finally:
            checked_at.append(time.monotonic())

    monkeypatch.setattr(opening, "whole_check", slow_check)

    async def index() -> list[tuple[float, str, list[str]]]:
        import time

        published: list[tuple[float, str, list[str]]] = []
        port = _Port()
        port.publish = lambda uri, ds, version: published.append(  # type: ignore[method-assign]
            (time.monotonic(), uri, [str(d.code) for d in ds]))
        engine = Engine(port, asyncio.get_running_loop())
        engine.init_options = {"diagnostics": {"debounceMs": 0}}
        folder = engine.add_folder(repo.as_uri())
        assert folder is not None
        await engine.load_settings([folder], pull=False)
        await engine.index(folder)
        engine.close()
        return published

    published = asyncio.run(index())
    early = [(uri, codes) for at, uri, codes in published if at < checked_at[0]]
    assert (repo / "AGENTS.md").as_uri() in dict(early)
    assert "broken-import" in dict(early)[(repo / "AGENTS.md").as_uri()]
    # the graph-wide one (the import cycle) only with the whole check
    final = {uri: codes for _, uri, codes in published}
    cycle = (repo / "docs/b.md").as_uri()
    assert "import-cycle" in final[cycle]
    assert "import-cycle" not in dict(early).get(cycle, [])
    for uri, codes in early:
        assert set(codes) <= set(final[uri])


def test_the_answer_to_initialize_is_keyed_by_what_shapes_it() -> None:
    params = {"processId": 1, "workDoneToken": "a", "rootUri": "file:///r",
              "capabilities": {"general": {"positionEncodings": ["utf-16"]}}}
    again = {**params, "processId": 2, "workDoneToken": "b"}
    other = {**params, "capabilities": {"general": {"positionEncodings": ["utf-8"]}}}
    assert server_start.init_key(params) == server_start.init_key(again)
    assert server_start.init_key(params) != server_start.init_key(other)
