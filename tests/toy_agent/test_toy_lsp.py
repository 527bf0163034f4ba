"""The toy agent (tests/toy_agent/__init__.py) end to end through the language server, started
with the agent registered (`python -m tests.toy_agent.server`): the client is asked to watch
its non-Markdown file, its findings are diagnostics of its files and follow their changes, a
source file's hover speaks its unit when it is the agent of the `profile` setting, and the
custom requests (profiles, compare, session) include it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from tests.lsp.conftest import (
    plain,
    pulled_where,
    pushed,
    serve_module,
    session,
    wait_for,
    write,
)
from tests.toy_agent.conftest import FILES, TARGET

pytestmark = pytest.mark.slow  # the language server, end to end

CUT = "src/TOY.txt is cut at 64 bytes (maxBytes) when working in `src/`: 33 of its bytes are read"
LEFT_OUT = ("src/api/TOY.txt is left out: maxBytes (64 bytes) is used up before it when working "
            "in `src/api/`")


@pytest.fixture(autouse=True)
def toy_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest.session, but starting `rulemap serve` with the toy agent registered."""
    serve_module(monkeypatch, "tests.toy_agent.server")


async def request(lsp: Any, method: str, params: Any) -> Any:
    return plain(await lsp.protocol.send_request_async(method, params))


def toy_messages(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [d.message for d in diagnostics if str(d.code) == "budget-overflow"]


async def test_the_client_watches_its_non_markdown_file(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        regs = await wait_for(lambda: lsp.registrations, what="client/registerCapability")  # type: ignore[attr-defined]
        [watched] = [r for r in regs if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        changes = {
            w["globPattern"] for w in watched.register_options["watchers"]
            if w.get("kind") == types.WatchKind.Change
        }
        assert "**/TOY.txt" in changes and "**/*.md" in changes


async def test_its_findings_are_diagnostics_and_follow_its_file(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        cut = (tmp_path / "src/TOY.txt").as_uri()
        left_out = (tmp_path / "src/api/TOY.txt").as_uri()
        found = await pulled_where(lsp, cut, lambda d: bool(toy_messages(d)))
        [diagnostic] = [d for d in found if str(d.code) == "budget-overflow"]
        assert diagnostic.message == f"toy: {CUT}"
        assert diagnostic.severity == types.DiagnosticSeverity.Warning
        assert diagnostic.range == types.Range(start=types.Position(line=0, character=0),
                                               end=types.Position(line=0, character=40))
        found = await pulled_where(lsp, left_out, lambda d: bool(toy_messages(d)))
        assert toy_messages(found) == [f"toy: {LEFT_OUT}"]
        # the file changes on disk, and the client (watching **/TOY.txt) says so: the budget
        # now holds everything, so both findings go
        await asyncio.sleep(0.3)
        write(tmp_path, {"src/TOY.txt": "short.\n"})
        lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=cut, type=types.FileChangeType.Changed)]))
        await pulled_where(lsp, cut, lambda d: not toy_messages(d))
        await pulled_where(lsp, left_out, lambda d: not toy_messages(d))


async def test_the_server_watches_its_file_itself(tmp_path: Path) -> None:
    """A client without dynamic registration (Neovim): the server's own watcher sees a change
    of TOY.txt, and the pushed diagnostics follow."""
    write(tmp_path, FILES)
    async with session(tmp_path, "neovim") as lsp:
        cut = (tmp_path / "src/TOY.txt").as_uri()
        found = await pushed(lsp, cut, lambda c: c == ["budget-overflow"])
        assert [d.message for d in found] == [f"toy: {CUT}"]
        await asyncio.sleep(0.3)  # let the observer settle
        write(tmp_path, {"src/TOY.txt": "short.\n"})  # no notification: the server watches
        await pushed(lsp, cut, lambda c: c == [])


async def test_source_hover_in_its_unit_when_it_is_the_profile(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode", configuration={"profile": "toy"}) as lsp:
        source = (tmp_path / TARGET).as_uri()
        await pulled_where(lsp, (tmp_path / "AGENTS.md").as_uri(), lambda d: True)
        hover = await lsp.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=source),
            position=types.Position(line=0, character=0),
        ))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert f"**Instructions an agent loads for `{TARGET}`** · toy · cwd `.`" in text
        rows = [line for line in text.splitlines() if line.startswith(("1.", "2.", "- ~~"))]
        assert len(rows) == 3, text
        assert "TOY.txt" in rows[0] and rows[0].endswith("project instructions · 31 bytes")
        assert "src/TOY.txt" in rows[1]
        assert rows[1].endswith("project instructions · 33 bytes — **cut** by maxBytes")
        assert "src/api/TOY.txt" in rows[2] and rows[2].endswith("**left out**: over maxBytes")
        assert "**64 of 64 bytes** (100%)" in text
        assert "chars" not in text.split("**Every selected agent**")[0]
        # the table of every selected agent (it is detected): its row in its unit
        assert "| **toy** | 2 | 64 / 64 bytes | cut `src/TOY.txt` · 1 left out |" in text


async def test_custom_requests_include_it(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        source = (tmp_path / TARGET).as_uri()
        await request(lsp, "rulemap/effectiveInstructions", {"uri": source})  # indexed
        listed = await request(lsp, "rulemap/profiles", {})
        assert {"name": "toy", "title": "Toy agent",
                "description": "TOY.txt in each directory from the root down to the target's, "
                               "64 bytes shared"} in listed["profiles"]
        assert listed["selected"][0] == "cogitator" and "toy" in listed["selected"]  # detected
        data = await request(lsp, "rulemap/compare",
                             {"uri": source, "profiles": ["cogitator", "toy"]})
        assert [c["profile"] for c in data["columns"]] == ["cogitator", "toy"]
        toy = data["columns"][1]
        assert toy["summary"] == "2 files, 64 of 64 bytes, cut: src/TOY.txt, 1 left out"
        assert toy["explanation"]["budget"] == {"kind": "shared", "unit": "bytes", "limit": 64}
        assert toy["explanation"]["leftOutUris"] == [(tmp_path / "src/api/TOY.txt").as_uri()]
        run = await request(lsp, "rulemap/session", {
            "uri": tmp_path.as_uri(), "profile": "toy",
            "steps": [{"kind": "read", "paths": [TARGET]}],
        })
        assert run["profile"] == "toy" and run["hasStepModel"] is True
        assert [[f["path"] for f in s["joined"]] for s in run["steps"]] == [
            ["TOY.txt"], ["src/TOY.txt"]]
        assert run["steps"][1]["leftOut"] == ["src/api/TOY.txt"]
        assert run["firstCutStep"] == 1


async def test_its_own_file_is_an_instruction_file_in_the_editor(tmp_path: Path) -> None:
    """TOY.txt is no Markdown and no file of the default model's layout: with the toy agent
    selected it is still an instruction file — a hover says what loads it, a code lens says for
    how many files, and the Instructions view (`rulemap/instructionFiles`) lists it."""
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode", configuration={"profile": "toy"}) as lsp:
        toy = (tmp_path / "src/TOY.txt").as_uri()
        await pulled_where(lsp, toy, lambda d: bool(toy_messages(d)))
        for uri in (toy, (tmp_path / "AGENTS.md").as_uri()):
            # prose of an instruction file does not get a source file's "Instructions an agent
            # loads for" hover: only "who sees this paragraph" (once the per-agent overview
            # is ready; nothing before)
            hover = await lsp.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=0),
            ))
            text = hover.contents.value if hover is not None and isinstance(
                hover.contents, types.MarkupContent) else ""
            assert hover is None or text.startswith("**Who sees this paragraph**"), text
        lenses = await lsp.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=toy)))
        titles = [lens.command.title for lens in lenses or [] if lens.command]
        assert titles and any("load" in t.lower() for t in titles), titles
        listed = await request(lsp, "rulemap/instructionFiles", {})
        paths = {f["path"] for f in listed["files"]}
        assert {"TOY.txt", "src/TOY.txt", "src/api/TOY.txt", "AGENTS.md"} <= paths
        assert next(f for f in listed["files"] if f["path"] == "src/TOY.txt")["kind"] == (
            "instruction")
