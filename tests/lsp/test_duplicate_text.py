"""duplicate-text and drifted-copy in the editor: graph-wide diagnostics with their first copy
as related information, that go away when the copy is edited to match (after the whole check
runs again)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from tests.lsp.conftest import change_doc, open_doc, pulled, pulled_where, session, write

PNPM = "Use pnpm for every package operation; never run npm install or yarn in this repository."
TESTS = "Run the unit tests with `pnpm test` and the linters with `pnpm lint` before a commit."
MIGRATIONS = "Database migrations live in db/migrations and are applied by `pnpm migrate` in CI."


def doc(*paragraphs: str) -> str:
    return "\n\n".join(("# Project", *paragraphs)) + "\n"


async def test_duplicate_and_drift_diagnostics_and_an_edit_that_ends_the_drift(
        tmp_path: Path) -> None:
    edited = TESTS.replace("`pnpm test`", "`pnpm test:unit`")
    write(tmp_path, {"AGENTS.md": doc(PNPM, TESTS, MIGRATIONS),
                     "CLAUDE.md": doc(PNPM, edited, MIGRATIONS),
                     "rulemap.toml": 'profiles = ["cogitator"]\n'})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "CLAUDE.md")
        found = await pulled(lsp, uri, lambda c: "drifted-copy" in c and "duplicate-text" in c)
        drift = next(d for d in found if d.code == "drifted-copy")
        assert drift.severity == types.DiagnosticSeverity.Information
        assert drift.range.start.line == 4
        assert "`pnpm test`" in drift.message
        duplicate = next(d for d in found if d.code == "duplicate-text")
        assert duplicate.range.start.line == 2
        assert duplicate.related_information is not None
        assert duplicate.related_information[0].location.uri.endswith("/AGENTS.md")

        # the "who sees this paragraph" hover names the other copy
        deadline = asyncio.get_running_loop().time() + 20
        while True:  # the first hover asks for the overview; it is ready shortly after
            got = await lsp.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=2, character=2)))
            if got is not None:
                break
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.05)
        assert isinstance(got.contents, types.MarkupContent)
        assert "- also in `AGENTS.md` (line 3): the model gets it twice" in got.contents.value

        # the copy is made to say the same again: no drift left once the whole check reruns
        change_doc(lsp, uri, doc(PNPM, TESTS, MIGRATIONS), 2)
        await pulled_where(lsp, uri, lambda ds: not any(d.code == "drifted-copy" for d in ds))
