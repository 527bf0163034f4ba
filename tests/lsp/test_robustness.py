"""The server keeps answering: garbage, unknown methods, odd URIs, edit storms, odd files."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from tests.lsp.conftest import (
    change_doc,
    codes,
    open_doc,
    pulled,
    pushed,
    server_env,
    session,
    wait_for,
    write,
)

# ----- raw JSON-RPC over a pipe or a socket ----------------------------------------------------


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(payload: dict[str, Any]) -> bytes:
    return frame(json.dumps(payload).encode())


class Raw:
    """A minimal JSON-RPC peer reading framed messages from a byte stream."""

    def __init__(self, read: Any):
        self.read = read
        self.buffer = b""

    def next(self, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    return json.loads(rest[:length])  # type: ignore[no-any-return]
            if time.monotonic() > deadline:
                raise TimeoutError("no message from the server")
            chunk = self.read(65536)
            if not chunk:
                raise EOFError("the server closed the stream")
            self.buffer += chunk

    def response(self, msg_id: int) -> dict[str, Any]:
        while True:
            msg = self.next()
            if msg.get("id") == msg_id and "method" not in msg:
                return msg


def initialize(root: Path, msg_id: int = 1) -> bytes:
    return message(
        {
            "jsonrpc": "2.0",
            "id": msg_id,
            "method": "initialize",
            "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        }
    )


def test_garbage_on_stdin(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulemap", "serve", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    raw = Raw(proc.stdout.read1)  # type: ignore[attr-defined]
    try:
        proc.stdin.write(frame(b"{this is not json"))
        proc.stdin.write(frame(b"[1, 2, 3]"))
        proc.stdin.write(b"Content-Type: nonsense\r\n\r\n")
        proc.stdin.write(initialize(tmp_path))
        proc.stdin.flush()
        result = raw.response(1)
        assert result["result"]["capabilities"]["hoverProvider"]
        proc.stdin.write(message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        # unknown method, malformed params of a known one, a request for an untitled document
        proc.stdin.write(
            message({"jsonrpc": "2.0", "id": 2, "method": "rulemap/unknown", "params": {}})
        )
        proc.stdin.write(
            message(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "textDocument/hover",
                    "params": {"textDocument": 5},
                }
            )
        )
        proc.stdin.write(
            message(
                {
                    "jsonrpc": "2.0",
                    "id": 4,
                    "method": "textDocument/hover",
                    "params": {
                        "textDocument": {"uri": "untitled:Untitled-1"},
                        "position": {"line": 0, "character": 0},
                    },
                }
            )
        )
        proc.stdin.write(
            message(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {
                            "uri": (tmp_path / "never-opened.md").as_uri(),
                            "version": 3,
                        },
                        "contentChanges": [{"text": "@x.md"}],
                    },
                }
            )
        )
        proc.stdin.write(
            message({"jsonrpc": "2.0", "method": "$/unknownNotification", "params": {}})
        )
        proc.stdin.flush()
        assert raw.response(2)["error"]["code"] == -32601
        assert "error" in raw.response(3)
        assert raw.response(4).get("result") is None
        proc.stdin.write(
            message({"jsonrpc": "2.0", "id": 5, "method": "rulemap/profiles", "params": {}})
        )
        proc.stdin.write(message({"jsonrpc": "2.0", "id": 6, "method": "shutdown"}))
        proc.stdin.write(message({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        assert raw.response(5)["result"]["active"] == "cogitator"
        assert raw.response(6)["result"] is None
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_tcp(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n"})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulemap", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=server_env(),
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        with conn:
            raw = Raw(conn.recv)
            conn.sendall(initialize(tmp_path))
            assert raw.response(1)["result"]["serverInfo"]["name"] == "rulemap"
            conn.sendall(message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            assert raw.response(2)["result"] is None
    finally:
        proc.kill()
        proc.wait()


# ----- through pytest-lsp ------------------------------------------------------------------------


async def test_untitled_and_non_file_uris(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n"})
    async with session(tmp_path, "vscode") as lsp:
        for uri in ("untitled:Untitled-1", "vscode-notebook-cell:/x#y", "git:/a/b.md?ref"):
            lsp.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=uri, language_id="markdown", version=1, text="@missing.md\n"
                    )
                )
            )
            ident = types.TextDocumentIdentifier(uri=uri)
            assert (
                await lsp.text_document_hover_async(
                    types.HoverParams(
                        text_document=ident, position=types.Position(line=0, character=2)
                    )
                )
                is None
            )
            report = await lsp.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=ident)
            )
            assert (
                isinstance(report, types.RelatedFullDocumentDiagnosticReport) and not report.items
            )
            assert not await lsp.text_document_document_link_async(
                types.DocumentLinkParams(text_document=ident)
            )
            assert (
                await lsp.protocol.send_request_async("rulemap/rulesForFile", {"uri": uri})
                is not None
            )
            lsp.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text="x")],
                )
            )
            lsp.text_document_did_close(types.DidCloseTextDocumentParams(text_document=ident))
        agents = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, agents, lambda c: c == [])


@pytest.mark.parametrize("client", ["neovim", "vscode"])
async def test_a_thousand_rapid_edits(tmp_path: Path, client: str) -> None:
    write(tmp_path, {"AGENTS.md": "Start.\n", "docs/ok.md": "Fine.\n"})
    async with session(tmp_path, client) as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        for version in range(2, 1002):
            text = (
                f"Edit {version}: @docs/ok.md\n"
                if version % 2
                else f"Edit {version}: @docs/no{version}.md\n"
            )
            change_doc(lsp, uri, text, version)
        change_doc(lsp, uri, "Final: @docs/final-missing.md\n", 1002)

        def final(diags: list[types.Diagnostic]) -> bool:
            return len(diags) == 1 and "final-missing" in diags[0].message

        if client == "neovim":
            await wait_for(
                lambda: final(list(lsp.diagnostics.get(uri, []))), what="the final state"
            )
            await asyncio.sleep(0.5)  # nothing stale arrives afterwards
            assert final(list(lsp.diagnostics[uri]))
        else:
            diags = await pulled(lsp, uri, lambda c: c == ["broken-import"])
            assert final(diags)
        # still answering quickly
        assert await lsp.protocol.send_request_async("rulemap/profiles", {}) is not None


async def test_binary_and_huge_files(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "AGENTS.md": "@blob.md and @big.md\n",
            "blob.md": b"\x00\x01\x02binary\xff",
            "pkg/AGENTS.md": b"\x89PNG\r\n\x1a\n\x00\x00",
            "big.md": "x" * (5 * 1024 * 1024),
            "src/app.ts": "x\n",
        },
    )
    async with session(tmp_path, "neovim") as lsp:
        pkg = (tmp_path / "pkg/AGENTS.md").as_uri()
        assert "unreadable-file" in codes(await pushed(lsp, pkg, lambda c: "unreadable-file" in c))
        agents = (tmp_path / "AGENTS.md").as_uri()
        diags = await pushed(lsp, agents, lambda c: c.count("unreadable-file") == 2)
        assert any("MiB" in d.message for d in diags)
        # opening them anyway (an editor may), hovering, asking for links
        open_doc(lsp, tmp_path / "big.md", text="y" * (5 * 1024 * 1024))
        lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=pkg, language_id="markdown", version=1, text="\x00\x01 @x.md"
                )
            )
        )
        for uri in (pkg, (tmp_path / "big.md").as_uri(), (tmp_path / "blob.md").as_uri()):
            await lsp.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=0, character=3),
                )
            )
            await lsp.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        result = await lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions", {"uri": (tmp_path / "src/app.ts").as_uri()}
        )
        assert result is not None and any(s.path in ("blob.md", "big.md") for s in result.skipped)


async def test_refuses_home_and_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home, {"AGENTS.md": "@missing.md\n"})
    async with session([home, Path("/")], "neovim", env={"HOME": str(home)}) as lsp:
        text = await wait_for(
            lambda: len(lsp.messages) >= 2 and "\n".join(m.message for m in lsp.messages),
            what="two refusals",
        )
        assert "home directory" in text and "file system root" in text
        assert (
            await lsp.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=(home / "AGENTS.md").as_uri()),
                    position=types.Position(line=0, character=1),
                )
            )
            is None
        )
        await asyncio.sleep(0.5)
        assert lsp.diagnostics == {}


async def test_workspace_folders_added_and_removed(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, {"AGENTS.md": "@missing-one.md\n"})
    write(two, {"AGENTS.md": "@missing-two.md\n"})
    async with session(one, "neovim") as lsp:
        await pushed(lsp, (one / "AGENTS.md").as_uri(), lambda c: c == ["broken-import"])
        lsp.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[types.WorkspaceFolder(uri=two.as_uri(), name="two")], removed=[]
                )
            )
        )
        await pushed(lsp, (two / "AGENTS.md").as_uri(), lambda c: c == ["broken-import"])
        lsp.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[], removed=[types.WorkspaceFolder(uri=one.as_uri(), name="one")]
                )
            )
        )
        await pushed(lsp, (one / "AGENTS.md").as_uri(), lambda c: c == [])
        graph = await lsp.protocol.send_request_async("rulemap/graph", {})
        assert [r.root for r in graph.roots] == [str(two)]


async def test_request_errors_do_not_kill_the_server(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "Hi.\n"})
    async with session(tmp_path, "vscode") as lsp:
        for params in (None, [], {"uri": 5}, {"uri": "file:///x", "profile": 3}):
            with pytest.raises(JsonRpcException):
                await lsp.protocol.send_request_async("rulemap/effectiveInstructions", params)
        assert await lsp.protocol.send_request_async("rulemap/instructionFiles", {}) is not None
