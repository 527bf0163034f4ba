"""End-to-end helpers: the real server as a subprocess, driven by pytest-lsp's client while
impersonating a real editor's capabilities."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0


def vscode_capabilities() -> types.ClientCapabilities:
    """VS Code as it is today: pytest-lsp's recorded 1.65 capabilities plus pull diagnostics
    (textDocument/diagnostic, workspace/diagnostic/refresh), which later releases added."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=True, related_document_support=False
    )
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


def neovim_capabilities() -> types.ClientCapabilities:
    return client_capabilities("neovim@v0.7.0")


CLIENTS: dict[str, Callable[[], types.ClientCapabilities]] = {
    "vscode": vscode_capabilities,
    "neovim": neovim_capabilities,
}


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "server") + os.pathsep + env.get("PYTHONPATH", "")
    return env


@contextlib.asynccontextmanager
async def session(
    root: Path | list[Path],
    client: str = "vscode",
    init_options: Any = None,
    configuration: dict[str, Any] | None = None,
    capabilities: types.ClientCapabilities | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[LanguageClient]:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "rulemap", "serve"],
        server_env={**server_env(), **(env or {})},
    )
    lsp = await config.start()
    assert isinstance(lsp, LanguageClient)
    graph_changes: list[Any] = []
    lsp.graph_changes = graph_changes  # type: ignore[attr-defined]

    registrations: list[Any] = []
    lsp.registrations = registrations  # type: ignore[attr-defined]

    @lsp.feature("rulemap/graphChanged")
    def _graph_changed(params: Any) -> None:
        graph_changes.append(params)

    @lsp.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    if configuration is not None:
        lsp.set_configuration(configuration, section="rulemap")
    roots = root if isinstance(root, list) else [root]
    lsp.init_result = await lsp.initialize_session(
        types.InitializeParams(  # type: ignore[attr-defined]
            capabilities=capabilities or CLIENTS[client](),
            workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots],
            initialization_options=init_options,
        )
    )
    try:
        yield lsp
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(lsp.shutdown_session(), 10)
        await lsp.stop()


def serve_module(monkeypatch: pytest.MonkeyPatch, module: str, *args: str) -> None:
    """`session` from now on starts `python -m MODULE ARGS` — `rulemap serve` with a test's
    agents registered first (tests/lsp/toy_server.py, tests/toy_agent/server.py) — with the
    repository on its PYTHONPATH."""
    real = ClientServerConfig

    def config(server_command: list[str], server_env: dict[str, str]) -> Any:
        path = os.pathsep.join([str(REPO), server_env.get("PYTHONPATH", "")])
        return real(
            server_command=[sys.executable, "-m", module, *args],
            server_env={**server_env, "PYTHONPATH": path},
        )

    monkeypatch.setattr(sys.modules[__name__], "ClientServerConfig", config)


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def open_doc(
    lsp: LanguageClient, path: Path, text: str | None = None, language: str = "markdown"
) -> str:
    uri = path.as_uri()
    lsp.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id=language,
                version=1,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


def change_doc(lsp: LanguageClient, uri: str, text: str, version: int) -> None:
    lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def wait_for(
    predicate: Callable[[], Any], timeout: float = TIMEOUT, what: str = "condition"
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def hover_text(lsp: LanguageClient, uri: str, line: int, timeout: float = 20) -> str:
    """The hover's Markdown at `line` of `uri`, once the server has one: the first hover of a
    file asks the worker for its overview, which is ready shortly after."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got = await lsp.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=2)))
        if got is not None:
            assert isinstance(got.contents, types.MarkupContent)
            return got.contents.value
        assert asyncio.get_running_loop().time() < deadline, (uri, line)
        await asyncio.sleep(0.05)


def codes(diagnostics: Any) -> list[str]:
    return sorted(str(d.code) for d in diagnostics or [])


async def pushed(
    lsp: LanguageClient, uri: str, predicate: Callable[[list[str]], bool], timeout: float = TIMEOUT
) -> list[types.Diagnostic]:
    """Wait until the diagnostics pushed for `uri` satisfy `predicate(codes)`."""
    await wait_for(
        lambda: uri in lsp.diagnostics and predicate(codes(lsp.diagnostics[uri])),
        timeout,
        f"pushed diagnostics of {uri}",
    )
    return list(lsp.diagnostics[uri])


async def pulled(
    lsp: LanguageClient, uri: str, predicate: Callable[[list[str]], bool], timeout: float = TIMEOUT
) -> list[types.Diagnostic]:
    """Pull `textDocument/diagnostic` until the codes satisfy `predicate`."""
    return await pulled_where(lsp, uri, lambda diags: predicate(codes(diags)), timeout)


async def pulled_where(
    lsp: LanguageClient,
    uri: str,
    predicate: Callable[[list[types.Diagnostic]], bool],
    timeout: float = TIMEOUT,
) -> list[types.Diagnostic]:
    """Pull `textDocument/diagnostic` until the diagnostics satisfy `predicate`."""
    deadline = time.monotonic() + timeout
    while True:
        report = await asyncio.wait_for(
            lsp.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            ),
            timeout,
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        if predicate(list(report.items)):
            return list(report.items)
        if time.monotonic() > deadline:
            pytest.fail(f"pulled diagnostics of {uri} stayed {report.items}")
        await asyncio.sleep(0.05)


def plain(value: Any) -> Any:
    """pygls hands custom results over as named tuples: back to JSON-like dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
