"""stale-command in the editor: the diagnostic, the hover on a command, and a package.json
edit on disk re-checking the instruction file that runs its scripts."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types
from tests.lsp.conftest import open_doc, pulled, pulled_where, session, write

from rulemap.host.catalog import watched_globs

ROOT = json.dumps({"name": "root", "scripts": {"test": "vitest run", "build": "tsc -b"}})
AGENTS = "# Dev\n\nRun `npm run build`, then `npm run tets`.\n"


def _hover_text(result: types.Hover | None) -> str:
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    return result.contents.value


async def _hover(lsp: object, uri: str, line: int, character: int) -> str:
    params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                               position=types.Position(line=line, character=character))
    return _hover_text(await lsp.text_document_hover_async(params))  # type: ignore[attr-defined]


def test_task_files_are_watched() -> None:
    assert {"**/package.json", "**/Makefile", "**/justfile", "**/*.mk"} <= set(watched_globs())


async def test_diagnostic_hover_and_a_package_json_edit(tmp_path: Path) -> None:
    write(tmp_path, {"package.json": ROOT, "AGENTS.md": AGENTS})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        [diag] = await pulled(lsp, uri, lambda c: c == ["stale-command"])
        assert diag.severity == types.DiagnosticSeverity.Warning
        assert (diag.range.start.line, diag.range.start.character) == (2, 35)

        found = await _hover(lsp, uri, 2, 15)  # on `build`
        assert "runs `tsc -b`" in found and "package.json" in found
        missing = await _hover(lsp, uri, 2, 36)  # on `tets`
        assert "no script `tets`" in missing and "did you mean `test`?" in missing

        # the did-you-mean as a quick fix
        actions = await lsp.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag])))
        [fix] = [a for a in actions or [] if isinstance(a, types.CodeAction)
                 and a.title == "Change `tets` to `test`"]
        assert fix.edit is not None and fix.edit.changes is not None
        assert [e.new_text for e in fix.edit.changes[uri]] == ["test"]

        # the script is added on disk: the watched package.json re-checks AGENTS.md
        write(tmp_path, {"package.json": json.dumps(
            {"scripts": {"test": "vitest", "build": "tsc", "tets": "echo"}})})
        lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=(tmp_path / "package.json").as_uri(),
                            type=types.FileChangeType.Changed)]))
        await pulled_where(lsp, uri, lambda d: d == [])
        assert "runs `echo`" in await _hover(lsp, uri, 2, 36)
