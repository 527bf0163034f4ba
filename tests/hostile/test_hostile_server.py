"""The hostile repository through the language server: a clear diagnostic for each bad input,
every request answered on every hostile file, huge documents and edit storms survived, and
nothing outside the workspace opened, sent or logged.

The server runs under an audit hook (like tests/hostile/audited.py for the CLI) that records
every path the process opens; the client records every byte the server sends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tests.hostile.hostile_corpus import SECRET, Hostile, build
from tests.hostile.test_fuzz_server import assert_diagnostic, lines_of
from tests.lsp.conftest import (
    CLIENTS,
    change_doc,
    codes,
    plain,
    pulled_where,
    server_env,
    wait_for,
)

from rulemap.checks.registry import CHECK_CODES

T = TypeVar("T")
REQUEST_LIMIT = 20.0  # seconds for any one request; a FIFO read would block forever
DIAGNOSTICS_LIMIT = 60.0  # seconds for the first full set of diagnostics of the corpus

# Runs the real server (`rulemap serve --stdio`) with an audit hook logging every opened path
# (as written, absolute, and resolved) to $RULEMAP_TEST_OPEN_LOG, and stderr to
# $RULEMAP_TEST_STDERR_LOG. Both files are opened before the hook is installed.
AUDITED_SERVER = r"""
import os, sys
err = os.open(os.environ["RULEMAP_TEST_STDERR_LOG"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
os.dup2(err, 2)
log = open(os.environ["RULEMAP_TEST_OPEN_LOG"], "w", encoding="utf-8", buffering=1)

def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        log.write(os.path.abspath(path) + "\t" + os.path.realpath(path) + "\n")

sys.addaudithook(hook)
from rulemap.__main__ import main
sys.exit(main(["serve", "--stdio"]))
"""

SPECIAL = (
    "pkg/fifo/AGENTS.md",
    "pkg/fifo/CLAUDE.md",
    ".claude/rules/pipe.md",
    "pkg/dev/AGENTS.md",
    "pkg/sock/AGENTS.md",
)
# every file of the corpus worth asking about: the expected findings, the special files, links
# out of the workspace and into loops, the huge ones, files that are no instruction file at all
EXTRA_FILES = (
    "CLAUDE.md",
    "pkg/dev/AGENTS.md",
    "pkg/utf16/AGENTS.md",
    "docs/long.md",
    "docs/many.md",
    "chain/c0.md",
    "chain/c49.md",
    "linked-secret.md",
    "out-dir/secret.md",
    "loop/up/AGENTS.md",
    "loop/self/x.md",
    ".gitignore",
    "src/app.ts",
    "pkg/fifo/x.ts",
    "nowhere/new.md",
)
POSITIONS = ((0, 0), (1, 5), (1, 30), (2, 9), (3, 12), (0, 10**6), (10**6, 0))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    corpus = build(tmp_path_factory.mktemp("hostile"), empty_dirs=200)
    yield corpus
    corpus.close()


def hostile_env(hostile: Hostile) -> dict[str, str]:
    env = {**server_env(), "HOME": str(hostile.home)}
    env["XDG_CONFIG_HOME"] = str(hostile.home / ".config")
    env.pop("RULEMAP_CONFIG", None)
    return env


def hostile_files(hostile: Hostile) -> list[str]:
    return sorted({*hostile.expected, *EXTRA_FILES})


# ----- the audited session ---------------------------------------------------------------------


@dataclass
class Tap:
    """Everything the server sent, as raw bodies (checked for the secret as they arrive)."""

    bodies: int = 0
    leaks: list[str] = field(default_factory=list)

    def install(self, lsp: LanguageClient) -> None:
        stream = lsp._server.stdout  # type: ignore[attr-defined]
        assert stream is not None
        read = stream.readexactly

        async def readexactly(n: int) -> bytes:
            body = await read(n)
            self.bodies += 1
            text = body.decode("utf-8", "replace")
            if SECRET in text or "hostile-corpus-secret" in text:
                self.leaks.append(text[:2000])
            return body

        stream.readexactly = readexactly


@dataclass
class Audit:
    open_log: Path
    stderr_log: Path
    tap: Tap

    def opened(self) -> list[tuple[str, str]]:
        if not self.open_log.exists():
            return []
        rows = self.open_log.read_text(encoding="utf-8").splitlines()
        return [tuple(r.split("\t", 1)) for r in rows if "\t" in r]  # type: ignore[misc]

    def assert_safe(self, hostile: Hostile) -> None:
        assert self.tap.bodies > 0
        assert self.tap.leaks == [], f"the server sent the secret: {self.tap.leaks[:3]}"
        stderr = self.stderr_log.read_text(encoding="utf-8", errors="replace")
        assert SECRET not in stderr
        assert "Traceback" not in stderr, stderr[-5000:]
        opened = self.opened()
        assert opened, "the audit hook logged nothing"
        forbidden = (str(hostile.outside), str(hostile.home / ".ssh"))
        leaked = [row for row in opened if any(p.startswith(forbidden) for p in row)]
        assert leaked == [], f"opened outside the workspace: {leaked}"
        # the special files are only ever stat'ed, never opened (a FIFO would block)
        specials = {str(hostile.root / s) for s in SPECIAL} | {"/dev/zero"}
        touched = [row for row in opened if specials & set(row)]
        assert touched == [], f"opened a special file: {touched}"


@contextlib.asynccontextmanager
async def audited_session(
    hostile: Hostile, tmp_path: Path, client: str
) -> AsyncIterator[tuple[LanguageClient, Audit]]:
    """The server on the corpus, under the audit hook; on a clean exit, asserts it was safe."""
    audit = Audit(tmp_path / "opened.log", tmp_path / "stderr.log", Tap())
    env = {
        **hostile_env(hostile),
        "RULEMAP_TEST_OPEN_LOG": str(audit.open_log),
        "RULEMAP_TEST_STDERR_LOG": str(audit.stderr_log),
    }
    config = ClientServerConfig(
        server_command=[sys.executable, "-c", AUDITED_SERVER], server_env=env
    )
    lsp = await config.start()
    assert isinstance(lsp, LanguageClient)
    audit.tap.install(lsp)

    @lsp.feature("rulemap/graphChanged")
    def _graph_changed(params: Any) -> None:
        pass

    try:
        await asyncio.wait_for(
            lsp.initialize_session(
                types.InitializeParams(
                    capabilities=CLIENTS[client](),
                    workspace_folders=[
                        types.WorkspaceFolder(uri=hostile.root.as_uri(), name="repo")
                    ],
                )
            ),
            REQUEST_LIMIT,
        )
        yield lsp, audit
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(lsp.shutdown_session(), 10)
        await lsp.stop()
    # only after a body that passed: the process has exited, its logs are complete
    audit.assert_safe(hostile)


async def answer(awaitable: Awaitable[T], what: str) -> T:
    try:
        return await asyncio.wait_for(awaitable, REQUEST_LIMIT)
    except TimeoutError:
        pytest.fail(f"no answer within {REQUEST_LIMIT}s: {what}")


def cli_findings(hostile: Hostile) -> dict[str, set[str]]:
    """What `rulemap check --format json` reports for the corpus: root-relative path → codes."""
    proc = subprocess.run(
        [sys.executable, "-m", "rulemap", "check", str(hostile.root), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=hostile_env(hostile),
    )
    assert proc.returncode == 1, proc.stderr
    found: dict[str, set[str]] = {}
    for diagnostic in json.loads(proc.stdout)["diagnostics"]:
        found.setdefault(diagnostic["path"], set()).add(diagnostic["code"])
    return found


def pushed_findings(lsp: LanguageClient, hostile: Hostile) -> dict[str, set[str]]:
    prefix = hostile.root.as_uri() + "/"
    return {
        uri[len(prefix) :]: set(codes(diags))
        for uri, diags in list(lsp.diagnostics.items())
        if uri.startswith(prefix) and diags
    }


# ----- diagnostics ---------------------------------------------------------------------------


def _disk_text(path: Path) -> str | None:
    """The text of a readable regular file of the corpus (None: special, binary, huge)."""
    try:
        if not path.is_file() or path.stat().st_size > 4 * 1024 * 1024:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


async def test_diagnostics_for_every_bad_file(hostile: Hostile, tmp_path: Path) -> None:
    """Each bad file gets its expected code on its own URI (the FIFOs, the socket, the device
    and the 50 MB file included), and in the end the server publishes exactly what the CLI
    reports, file by file."""
    cli = cli_findings(hostile)
    missing_in_cli = {p: c for p, c in hostile.expected.items() if c not in cli.get(p, set())}
    assert missing_in_cli == {}
    async with audited_session(hostile, tmp_path, "neovim") as (lsp, _audit):

        def missing() -> dict[str, str]:
            found = pushed_findings(lsp, hostile)
            return {p: c for p, c in hostile.expected.items() if c not in found.get(p, set())}

        await wait_for(lambda: not missing(), DIAGNOSTICS_LIMIT, "the expected diagnostics")
        await wait_for(
            lambda: pushed_findings(lsp, hostile) == cli,
            DIAGNOSTICS_LIMIT,
            "the same findings as `rulemap check`",
        )
        # every diagnostic well-formed: inside its file's text, or at 0:0 of an unreadable one
        prefix = hostile.root.as_uri() + "/"
        for uri, diagnostics in list(lsp.diagnostics.items()):
            text = _disk_text(hostile.root / uri[len(prefix) :])
            for diagnostic in diagnostics:
                if text is None:
                    assert diagnostic.range.start == types.Position(line=0, character=0), uri
                    assert diagnostic.code in CHECK_CODES and diagnostic.message.strip()
                else:
                    assert_diagnostic(lines_of(text), uri, diagnostic)
        fifo = (hostile.root / "pkg/fifo/AGENTS.md").as_uri()
        assert any("named pipe" in d.message for d in lsp.diagnostics[fifo])
        sock = (hostile.root / "pkg/sock/AGENTS.md").as_uri()
        assert any("socket" in d.message for d in lsp.diagnostics[sock])
        big = (hostile.root / "pkg/big/AGENTS.md").as_uri()
        assert any("MiB" in d.message for d in lsp.diagnostics[big])


# ----- every request on every hostile file ---------------------------------------------------


def _open_text(path: Path) -> str:
    """What an editor would show for the file (something, even for a FIFO)."""
    try:
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 1_000_000:
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    return "# Opened in the editor\n@../../AGENTS.md and @x.md, @../outside/secret.md\n"


async def ask_everything(lsp: LanguageClient, uri: str) -> None:
    ident = types.TextDocumentIdentifier(uri=uri)
    at_position: list[tuple[str, Callable[[types.Position], Any]]] = [
        (
            "hover",
            lambda p: lsp.text_document_hover_async(
                types.HoverParams(text_document=ident, position=p)
            ),
        ),
        (
            "completion",
            lambda p: lsp.text_document_completion_async(
                types.CompletionParams(text_document=ident, position=p)
            ),
        ),
        (
            "definition",
            lambda p: lsp.text_document_definition_async(
                types.DefinitionParams(text_document=ident, position=p)
            ),
        ),
        (
            "references",
            lambda p: lsp.text_document_references_async(
                types.ReferenceParams(
                    text_document=ident,
                    position=p,
                    context=types.ReferenceContext(include_declaration=True),
                )
            ),
        ),
    ]
    for line, character in POSITIONS:
        position = types.Position(line=line, character=character)
        for name, request in at_position:
            await answer(request(position), f"{name} {uri}@{line}:{character}")
    whole = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=10**6, character=0)
    )
    await answer(
        lsp.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=ident)),
        f"documentSymbol {uri}",
    )
    await answer(
        lsp.text_document_document_link_async(types.DocumentLinkParams(text_document=ident)),
        f"documentLink {uri}",
    )
    await answer(
        lsp.text_document_code_lens_async(types.CodeLensParams(text_document=ident)),
        f"codeLens {uri}",
    )
    await answer(
        lsp.text_document_inlay_hint_async(types.InlayHintParams(text_document=ident, range=whole)),
        f"inlayHint {uri}",
    )
    # the quick fixes of the document's own diagnostics, over the whole document and at 0:0
    for rng in (
        whole,
        types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)
        ),
    ):
        await answer(
            lsp.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=ident,
                    range=rng,
                    context=types.CodeActionContext(diagnostics=list(lsp.diagnostics.get(uri, []))),
                )
            ),
            f"codeAction {uri}",
        )
    await answer(
        lsp.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=ident)),
        f"textDocument/diagnostic {uri}",
    )
    result = await answer(
        lsp.protocol.send_request_async(
            "rulemap/effectiveInstructions", {"uri": uri, "includeText": True}
        ),
        f"rulemap/effectiveInstructions {uri}",
    )
    if result is not None:
        data = plain(result)
        assert all(not f["path"].startswith("/") for f in data["files"]), data["files"]
    await answer(
        lsp.protocol.send_request_async("rulemap/rulesForFile", {"uri": uri}),
        f"rulemap/rulesForFile {uri}",
    )


async def ask_workspace(lsp: LanguageClient) -> None:
    files = plain(
        await answer(
            lsp.protocol.send_request_async("rulemap/instructionFiles", {}), "instructionFiles"
        )
    )
    assert files["files"]
    graph = plain(await answer(lsp.protocol.send_request_async("rulemap/graph", {}), "graph"))
    assert graph["roots"]
    profiles = plain(
        await answer(lsp.protocol.send_request_async("rulemap/profiles", {}), "profiles")
    )
    assert profiles["active"]
    for query in ("", "AGENTS", "[z-a]"):
        await answer(
            lsp.workspace_symbol_async(types.WorkspaceSymbolParams(query=query)),
            f"workspace/symbol {query!r}",
        )


async def test_every_request_on_every_hostile_file(hostile: Hostile, tmp_path: Path) -> None:
    """Hover, completion, definition, references, symbols, links, lenses, hints, code actions,
    pull diagnostics and the custom requests (docs/protocol.md) all answer, in time, on every
    hostile file — on disk, then opened in the editor (FIFOs, the socket and the device with
    some text, the 50 MB file with 5 MB), then closed again."""
    async with audited_session(hostile, tmp_path, "neovim") as (lsp, _audit):
        fifo = (hostile.root / "pkg/fifo/AGENTS.md").as_uri()
        await wait_for(
            lambda: "unreadable-file" in codes(lsp.diagnostics.get(fifo)),
            DIAGNOSTICS_LIMIT,
            "the first diagnostics",
        )
        rels = hostile_files(hostile)
        for rel in rels:
            await ask_everything(lsp, (hostile.root / rel).as_uri())
        await ask_workspace(lsp)

        for rel in rels:
            path = hostile.root / rel
            text = "y" * (5 * 1024 * 1024) if rel == "pkg/big/AGENTS.md" else _open_text(path)
            lsp.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=path.as_uri(), language_id="markdown", version=1, text=text
                    )
                )
            )
        for rel in rels:
            await ask_everything(lsp, (hostile.root / rel).as_uri())
        await ask_workspace(lsp)
        # opened, the FIFO is its buffer: no longer unreadable; the 5 MB buffer is over the cap
        await wait_for(
            lambda: "unreadable-file" not in codes(lsp.diagnostics.get(fifo)),
            REQUEST_LIMIT,
            "the opened FIFO's buffer to be linted",
        )
        big = (hostile.root / "pkg/big/AGENTS.md").as_uri()
        assert "unreadable-file" in codes(lsp.diagnostics.get(big))

        for rel in rels:
            lsp.text_document_did_close(
                types.DidCloseTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=(hostile.root / rel).as_uri())
                )
            )
        # closed, the disk speaks again
        await wait_for(
            lambda: "unreadable-file" in codes(lsp.diagnostics.get(fifo)),
            REQUEST_LIMIT,
            "the FIFO to be unreadable again after didClose",
        )
        assert await answer(lsp.protocol.send_request_async("rulemap/profiles", {}), "profiles")
        await settle(lsp)


async def settle(lsp: LanguageClient) -> None:
    """Let the re-index that opening rulemap.toml and .gitignore scheduled finish before the
    session shuts down (work still pending at shutdown is test_shutdown_with_work_pending)."""
    await asyncio.sleep(0.5)  # past debounceMs: the re-index has started
    await answer(lsp.protocol.send_request_async("rulemap/instructionFiles", {}), "settle")
    await answer(lsp.protocol.send_request_async("rulemap/graph", {}), "settle")
    await asyncio.sleep(0.5)


# ----- huge documents and edit storms ----------------------------------------------------------


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def test_huge_documents_and_edit_storms(hostile: Hostile, tmp_path: Path) -> None:
    """didOpen of the 3,000-import document and of a 300k-character line, then didChange storms
    on both: the diagnostics of the last version arrive, at the right UTF-16 position, and the
    server still answers quickly."""
    async with audited_session(hostile, tmp_path, "vscode") as (lsp, _audit):
        many = hostile.root / "docs/many.md"
        many_uri = many.as_uri()
        many_text = many.read_text(encoding="utf-8")
        lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=many_uri, language_id="markdown", version=1, text=many_text
                )
            )
        )
        diags = await pulled_where(
            lsp, many_uri, lambda d: any("m/missing.md" in x.message for x in d), DIAGNOSTICS_LIMIT
        )
        assert "broken-import" in codes(diags)

        # a new AGENTS.md, only in the editor: one 300k-character line (astral characters
        # first, so UTF-16 columns differ from code points) ending in a broken import
        long_doc = hostile.root / "pkg/long/AGENTS.md"
        long_uri = long_doc.as_uri()
        prefix = "😀" * 1000 + "x" * 300_000 + " "
        lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=long_uri,
                    language_id="markdown",
                    version=1,
                    text=prefix + "@nowhere.md\n",
                )
            )
        )
        diags = await pulled_where(
            lsp, long_uri, lambda d: any("nowhere.md" in x.message for x in d), REQUEST_LIMIT
        )
        broken = [d for d in diags if d.code == "broken-import"]
        assert [d.range.start for d in broken] == [
            types.Position(line=0, character=utf16_len(prefix))
        ]

        # the storms: every other version breaks a different import
        storm = 60  # each change of the 3,000-import document costs the server ~50 ms
        for version in range(2, storm + 2):
            lines = many_text.splitlines()
            lines[version % 3000] = f"- @m/gone-{version}.md" if version % 2 else lines[0]
            change_doc(lsp, many_uri, "\n".join(lines) + "\n", version)
            if version % 5 == 0:
                change_doc(lsp, long_uri, prefix + f"@long-{version}.md\n", version)
        final = many_text + "@m/final-missing.md\n"
        change_doc(lsp, many_uri, final, storm + 2)
        change_doc(lsp, long_uri, prefix + "@long-final.md\n", storm + 2)

        def messages_of(diags: list[types.Diagnostic]) -> str:
            return "\n".join(d.message for d in diags)

        diags = await pulled_where(
            lsp, many_uri, lambda d: "final-missing" in messages_of(d), DIAGNOSTICS_LIMIT
        )
        assert "gone-" not in messages_of(diags)
        assert sorted(d.range.start.line for d in diags if d.code == "broken-import") == [
            3000,
            3001,
        ]
        diags = await pulled_where(
            lsp, long_uri, lambda d: "long-final" in messages_of(d), DIAGNOSTICS_LIMIT
        )
        assert "long-2" not in messages_of(diags)
        assert [d.range.start.character for d in diags if d.code == "broken-import"] == [
            utf16_len(prefix)
        ]
        # still answering, and about the last version
        hover = await answer(
            lsp.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=long_uri),
                    position=types.Position(line=0, character=utf16_len(prefix) + 3),
                )
            ),
            "hover on the long line",
        )
        assert hover is not None and "long-final" in json.dumps(plain(hover.contents), default=str)
        await ask_everything(lsp, many_uri)
        await ask_workspace(lsp)


async def test_repository_cannot_grant_itself_the_home_directory(
    hostile: Hostile, tmp_path: Path
) -> None:
    """The repo's rulemap.toml asks for `allowImportsFrom = ["~", "/"]`: the server says it
    ignores that, keeps the out-of-workspace imports skipped, and (assert_safe) never opens
    them."""
    async with audited_session(hostile, tmp_path, "neovim") as (lsp, _audit):
        toml = (hostile.root / "rulemap.toml").as_uri()
        await wait_for(
            lambda: "untrusted-config" in codes(lsp.diagnostics.get(toml)),
            DIAGNOSTICS_LIMIT,
            "untrusted-config on rulemap.toml",
        )
        agents = (hostile.root / "AGENTS.md").as_uri()
        diags = await wait_for(
            lambda: [
                d for d in lsp.diagnostics.get(agents, []) if d.code == "import-outside-workspace"
            ],
            DIAGNOSTICS_LIMIT,
            "import-outside-workspace on AGENTS.md",
        )
        assert {d.range.start.line for d in diags} == {1, 2, 4}
        result = plain(
            await answer(
                lsp.protocol.send_request_async(
                    "rulemap/effectiveInstructions",
                    {"uri": (hostile.root / "src/app.ts").as_uri(), "includeText": True},
                ),
                "effectiveInstructions src/app.ts",
            )
        )
        assert all(not f["path"].startswith("/") for f in result["files"])
        assert "AGENTS.md" in [f["path"] for f in result["files"]]
        for rel in ("AGENTS.md", "linked-secret.md", "out-dir/secret.md"):
            await ask_everything(lsp, (hostile.root / rel).as_uri())


async def test_shutdown_with_work_pending_is_quiet(hostile: Hostile, tmp_path: Path) -> None:
    """An edit of the configuration schedules a re-index (after debounceMs); a client that
    sends `shutdown` meanwhile and `exit` a little later must not get tracebacks on stderr
    (the engine's worker is gone by then). assert_safe checks stderr."""
    async with audited_session(hostile, tmp_path, "neovim") as (lsp, _audit):
        toml = (hostile.root / "rulemap.toml").as_uri()
        await wait_for(
            lambda: "untrusted-config" in codes(lsp.diagnostics.get(toml)),
            DIAGNOSTICS_LIMIT,
            "untrusted-config on rulemap.toml",
        )
        lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=toml, language_id="toml", version=1, text="maxChars = 1000\n"
                )
            )
        )
        await answer(lsp.protocol.send_request_async("rulemap/profiles", {}), "profiles")
        await answer(lsp.shutdown_async(None), "shutdown")
        await asyncio.sleep(1.0)  # the re-index timer fires now, after shutdown
        lsp.exit(None)
        server = lsp._server  # type: ignore[attr-defined]
        await asyncio.wait_for(server.wait(), REQUEST_LIMIT)
        lsp.capabilities = None  # already shut down: the session must not do it again
