"""Over stdio, as an editor asks: the server's rename edits name each real file once, and no
code action creates or edits a file outside the workspace (docs/security.md)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from tests.lsp.conftest import open_doc, session, write


def doc_id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _resolved(uri: str) -> Path:
    return Path(unquote(uri.removeprefix("file://"))).resolve()


async def test_rename_edits_one_real_file_once_and_actions_stay_inside(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(root, {"pkg/AGENTS.md": "Read @notes.md\n", "pkg/notes.md": "n\n",
                 "AGENTS.md": "@docs/alias.md and @out/new.md\n", "docs/keep.md": "k\n"})
    (root / ".git").mkdir()
    (root / "pkg/CLAUDE.md").symlink_to("AGENTS.md")
    (root / "docs/alias.md").symlink_to("../pkg/AGENTS.md")
    (root / "out").symlink_to(elsewhere)
    async with session(root) as lsp:
        edit = await lsp.workspace_will_rename_files_async(types.RenameFilesParams(files=[
            types.FileRename(old_uri=(root / "pkg/notes.md").as_uri(),
                             new_uri=(root / "pkg/renamed.md").as_uri())]))
        assert edit is not None and edit.changes is not None
        real = (root / "pkg/AGENTS.md").resolve()
        assert [u for u in edit.changes if _resolved(u) == real] == [
            (root / "pkg/AGENTS.md").as_uri()]
        [change] = edit.changes[(root / "pkg/AGENTS.md").as_uri()]
        assert change.new_text == "@renamed.md"

        agents = open_doc(lsp, root / "AGENTS.md")
        report = await lsp.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=doc_id(agents)))
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        codes = {str(d.code) for d in report.items}
        assert "import-outside-workspace" in codes and "broken-import" not in codes
        actions = await lsp.text_document_code_action_async(types.CodeActionParams(
            text_document=doc_id(agents), range=report.items[0].range,
            context=types.CodeActionContext(diagnostics=list(report.items))))
        for action in actions or []:
            assert isinstance(action, types.CodeAction)
            assert action.edit is not None
            uris = list((action.edit.changes or {}).keys())
            uris += [getattr(c, "uri", "") for c in action.edit.document_changes or []]
            for uri in uris:
                assert _resolved(uri).is_relative_to(root.resolve()), action.title
    assert not list(elsewhere.iterdir())
