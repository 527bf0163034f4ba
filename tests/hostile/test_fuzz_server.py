"""Fuzz the language server: random instruction files (frontmatter, `paths` globs, imports,
unicode and line breaks) opened and edited in one long-lived session. Every diagnostic, link,
symbol and quick fix must lie inside the document as the client has it (UTF-16 columns), carry
a known code and severity, and the server must keep answering.

Hypothesis drives a sync test; the server and its client live on an event loop in a thread of
their own, so one server serves every example."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.hostile.fuzz_inputs import frontmatter, globs, path_pieces
from tests.lsp.conftest import session, write

from rulemap.checks.registry import CHECK_CODES

T = TypeVar("T")
SECRET = "fuzz-server-secret-4f1c"
OP_LIMIT = 10.0  # seconds for one request or one wait
TOTAL_LIMIT = 60.0  # seconds for all examples together
MAX_EXAMPLES = 150
TARGETS = ("AGENTS.md", "CLAUDE.md", ".claude/rules/x.md", "pkg/AGENTS.md")
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as LSP splits lines (not str.splitlines)

# ----- strategies ------------------------------------------------------------------------------

import_paths = st.one_of(
    # what a hostile file reaches for, spelled cleanly, and anything else
    st.sampled_from(["../outside/secret.md", "~/.ssh/id_rsa", "../outside/", "~", "/"]),
    path_pieces,
)

PROSE = st.text(
    alphabet=st.sampled_from(
        [*"ab #`*_>-|@.:", "\t", "é", "中", "😀", "\u200d", "\ufeff", "\u2028", "\x85", "\r"]
    ),
    max_size=30,
)


@st.composite
def import_lines(draw: st.DrawFn) -> str:
    path = draw(import_paths)
    shape = draw(
        st.sampled_from(
            [
                "- @{}",
                "See @{}.",
                "@{}",
                "`@{}`",
                "(@{})",
                "x@{} @{}",
                "> @{}",
                "    @{}",
                "```\n@{}\n```",
            ]
        )
    )
    return draw(PROSE) + shape.replace("{}", path)


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts: list[str] = []
    if draw(st.booleans()):
        listed = draw(st.lists(globs, max_size=4))
        style = draw(st.sampled_from(["block", "flow", "scalar", "raw", "none"]))
        if style == "block":
            paths = "paths:" + "".join(
                f"\n  - {p!r}" if i % 2 else f"\n  - {p}" for i, p in enumerate(listed)
            )
        elif style == "flow":
            paths = "paths: [" + ", ".join(repr(p) for p in listed) + "]"
        elif style == "scalar":
            paths = "paths: " + (listed[0] if listed else "")
        elif style == "raw":
            paths = "paths: " + ",".join(listed)
        else:
            paths = ""
        closing = draw(st.sampled_from(["---\n", "---\r\n", "---", "...\n", ""]))
        parts.append("---\n" + draw(frontmatter) + "\n" + paths + "\n" + closing)
    body = draw(
        st.lists(
            st.one_of(
                import_lines(), PROSE, st.just("# Heading"), st.just("## Sub @x.md"), st.just("```")
            ),
            max_size=8,
        )
    )
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    parts.append(newline.join(body))
    if draw(st.booleans()):
        parts.append(newline)
    return "".join(parts)


edits = st.lists(st.tuples(st.sampled_from(TARGETS), documents()), min_size=1, max_size=3)

# ----- the long-lived server on its own loop ---------------------------------------------------


class Served:
    """A server session on an event loop in a background thread; `run` awaits a coroutine
    there from the (sync) hypothesis test."""

    def __init__(self, root: Path, env: dict[str, str]):
        self.root = root
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.leaks: list[str] = []
        self.bodies = 0
        self.started: float | None = None
        self._session = session(root, "vscode", env=env)
        self.lsp: LanguageClient = self.run(self._session.__aenter__(), 60)
        self._tap()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = OP_LIMIT) -> T:
        future = asyncio.run_coroutine_threadsafe(asyncio.wait_for(coro, timeout), self.loop)
        try:
            return future.result(timeout + 5)
        except TimeoutError:
            pytest.fail(f"the server did not answer within {timeout}s")

    def _tap(self) -> None:
        stream = self.lsp._server.stdout  # type: ignore[attr-defined]
        read = stream.readexactly

        async def readexactly(n: int) -> bytes:
            body = await read(n)
            self.bodies += 1
            if SECRET.encode() in body:
                self.leaks.append(body[:2000].decode("utf-8", "replace"))
            return body

        stream.readexactly = readexactly

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.run(self._session.__aexit__(None, None, None), 30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("fuzz-server")
    root, home = base / "ws", base / "home"
    (root / ".git").mkdir(parents=True)
    write(
        root,
        {
            "AGENTS.md": "# Root\n@docs/x.md\n",
            "CLAUDE.md": "@AGENTS.md\n",
            ".claude/rules/x.md": "---\npaths: ['src/**']\n---\nRule.\n",
            "pkg/AGENTS.md": "Package.\n",
            "docs/x.md": "Docs @../AGENTS.md\n",
            "src/a.ts": "x\n",
            "src/b/c.py": "y\n",
        },
    )
    write(base / "outside", {"secret.md": SECRET})
    write(home, {".ssh/id_rsa": SECRET})
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    server = Served(root, env)
    result = server.lsp.init_result  # type: ignore[attr-defined]
    assert result.capabilities.position_encoding in (None, types.PositionEncodingKind.Utf16)
    yield server
    server.close()
    assert server.leaks == [], server.leaks[:3]


# ----- well-formedness -------------------------------------------------------------------------


def lines_of(text: str) -> list[str]:
    return LINE_BREAK.split(text)


def utf16_units(line: str) -> int:
    return len(line.encode("utf-16-le")) // 2


def assert_position(lines: list[str], pos: types.Position, what: str) -> None:
    assert 0 <= pos.line < len(lines), f"{what}: line {pos.line} of {len(lines)} lines"
    line = lines[pos.line]
    assert 0 <= pos.character <= utf16_units(line), (
        f"{what}: character {pos.character} past the end of {line!r} "
        f"({utf16_units(line)} UTF-16 units)"
    )
    # never between the two halves of a surrogate pair
    units = line.encode("utf-16-le")
    if 0 < pos.character < utf16_units(line):
        unit = int.from_bytes(units[2 * pos.character : 2 * pos.character + 2], "little")
        assert not 0xDC00 <= unit <= 0xDFFF, f"{what}: character {pos.character} splits {line!r}"


def assert_range(lines: list[str], rng: types.Range, what: str) -> None:
    assert_position(lines, rng.start, what + " start")
    assert_position(lines, rng.end, what + " end")
    assert (rng.start.line, rng.start.character) <= (rng.end.line, rng.end.character), (
        f"{what}: {rng} ends before it starts"
    )


def assert_diagnostic(lines: list[str], uri: str, d: types.Diagnostic) -> None:
    what = f"{d.code} {d.message!r}"
    assert d.code in CHECK_CODES, what
    assert d.severity is not None and 1 <= int(d.severity) <= 4, what
    assert d.message.strip(), what
    assert d.source == "rulemap", what
    assert_range(lines, d.range, what)
    for related in d.related_information or []:
        if related.location.uri == uri:
            assert_range(lines, related.location.range, what + " related")


# ----- the test --------------------------------------------------------------------------------


async def _pull(lsp: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await lsp.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
    return list(report.items)


async def _send(served: Served, uri: str, text: str) -> None:
    lsp = served.lsp
    version = served.versions.get(uri, 0) + 1
    served.versions[uri] = version
    if version == 1:
        lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=1, text=text
                )
            )
        )
    else:
        lsp.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )


async def _features(
    lsp: LanguageClient, uri: str, diagnostics: list[types.Diagnostic], position: types.Position
) -> dict[str, Any]:
    ident = types.TextDocumentIdentifier(uri=uri)
    hover = await lsp.text_document_hover_async(
        types.HoverParams(text_document=ident, position=position)
    )
    links = await lsp.text_document_document_link_async(
        types.DocumentLinkParams(text_document=ident)
    )
    symbols = await lsp.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=ident)
    )
    whole = types.Range(start=types.Position(line=0, character=0), end=position)
    actions = await lsp.text_document_code_action_async(
        types.CodeActionParams(
            text_document=ident,
            range=whole,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    return {
        "hover": hover,
        "links": links or [],
        "symbols": symbols or [],
        "actions": actions or [],
    }


def _walk_symbols(symbols: list[Any]) -> Iterator[Any]:
    for symbol in symbols:
        yield symbol
        yield from _walk_symbols(getattr(symbol, "children", None) or [])


@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    report_multiple_bugs=False,
)
@given(edits, st.data())
def test_random_instruction_files(
    served: Served, changes: list[tuple[str, str]], data: st.DataObject
) -> None:
    if served.started is None:
        served.started = time.monotonic()
    elapsed = time.monotonic() - served.started
    if elapsed > TOTAL_LIMIT:
        pytest.fail(f"fuzzing the server took over {TOTAL_LIMIT}s ({elapsed:.0f}s)")
    for target, text in changes:
        uri = (served.root / target).as_uri()
        served.run(_send(served, uri, text))
        served.texts[uri] = text
        lines = lines_of(text)
        diagnostics = served.run(_pull(served.lsp, uri))
        for diagnostic in diagnostics:
            assert_diagnostic(lines, uri, diagnostic)

        line = data.draw(st.integers(0, len(lines) - 1), label="hover line")
        character = data.draw(st.integers(0, utf16_units(lines[line])), label="hover character")
        answers = served.run(
            _features(served.lsp, uri, diagnostics, types.Position(line=line, character=character))
        )
        hover = answers["hover"]
        assert hover is None or isinstance(hover, types.Hover)
        if hover is not None and hover.range is not None:
            assert_range(lines, hover.range, "hover")
        for link in answers["links"]:
            assert_range(lines, link.range, f"link {link.target}")
        for symbol in _walk_symbols(answers["symbols"]):
            assert_range(lines, symbol.range, f"symbol {symbol.name!r}")
            assert_range(lines, symbol.selection_range, f"symbol {symbol.name!r} selection")
        for action in answers["actions"]:
            for edit in (action.edit.changes or {}).get(uri, []) if action.edit else []:
                assert_range(lines, edit.range, f"quick fix {action.title!r}")
            for change in (action.edit.document_changes or []) if action.edit else []:
                if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
                    for edit in change.edits:
                        assert_range(lines, edit.range, f"quick fix {action.title!r}")
        assert served.leaks == [], f"the server sent the secret: {served.leaks[:2]}"
    # still answering; what an agent would load never holds the secret the imports reach for
    assert served.run(served.lsp.protocol.send_request_async("rulemap/profiles", {})) is not None
    for target in ("src/a.ts", "pkg/src/b.ts"):
        params = {"uri": (served.root / target).as_uri(), "includeText": True}
        result = served.run(
            served.lsp.protocol.send_request_async("rulemap/effectiveInstructions", params)
        )
        assert result is not None and SECRET not in result.text
    assert served.leaks == [], f"the server sent the secret: {served.leaks[:2]}"
