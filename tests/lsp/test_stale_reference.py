"""stale-reference in the editor: its diagnostic on an edited document, its quick fix, and the
hover on a path an instruction file names (what it resolves to, or where it moved)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from tests.lsp.conftest import open_doc, pulled, session, write

FILES = {
    "AGENTS.md": "# Project\n\nThe API is `src/api/users.ts`; billing is `src/api/billing.ts`.\n",
    "src/api/users.ts": "export const users = 1;\n",
    "server/billing.ts": "export const billing = 2;\n",
}


def _hover(result: types.Hover | None) -> str:
    assert result is not None
    contents = result.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


async def test_diagnostic_quick_fix_and_hover(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        [stale] = await pulled(lsp, uri, lambda c: c == ["stale-reference"])
        assert stale.severity == types.DiagnosticSeverity.Information
        assert stale.range.start == types.Position(line=2, character=43)
        doc = types.TextDocumentIdentifier(uri=uri)
        actions = await lsp.text_document_code_action_async(types.CodeActionParams(
            text_document=doc, range=stale.range,
            context=types.CodeActionContext(diagnostics=[stale])))
        fixes = [a for a in actions or [] if isinstance(a, types.CodeAction)
                 and a.title == "Change to `server/billing.ts`"]
        assert fixes and fixes[0].edit is not None
        found = _hover(await lsp.text_document_hover_async(types.HoverParams(
            text_document=doc, position=types.Position(line=2, character=16))))
        assert "`src/api/users.ts`" in found and "(file)" in found
        missing = _hover(await lsp.text_document_hover_async(types.HoverParams(
            text_document=doc, position=types.Position(line=2, character=50))))
        assert "no such file or folder" in missing and "server/billing.ts" in missing
