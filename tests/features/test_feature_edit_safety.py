"""Edits the language server proposes never land outside the workspace and never edit one real
file twice: on real files and symlinks (the local reader), as an editor's workspace holds them
(docs/security.md names these tests)."""

from __future__ import annotations

from pathlib import Path

from feature_api import code_actions, will_rename_files
from feature_helpers import apply_edits
from lsprotocol import types

from rulemap import analysis
from rulemap.cli.commands import open_host
from rulemap.host.snapshot import workspace_of
from rulemap.lsp.convert import to_range
from rulemap.workspace import Workspace


def _tree(root: Path, files: dict[str, str], links: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, target in links.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
    (root / ".git").mkdir(exist_ok=True)


def _actions(ws: Workspace, path: str, code: str) -> list[types.CodeAction]:
    found = [f for f in analysis.check(ws) if f.path == path and f.code == code]
    assert found, f"no {code} finding in {path}"
    finding = found[0]
    diagnostic = types.Diagnostic(
        range=to_range(ws.document(path).lines, finding.span, "utf-16"),
        message=finding.message, code=finding.code, source="rulemap")
    return code_actions(ws, path, diagnostic.range, [diagnostic], "utf-16")


def _targets(action: types.CodeAction) -> list[str]:
    """Every URI a code action's edit would create, change or rename."""
    edit = action.edit
    assert edit is not None
    uris = list((edit.changes or {}).keys())
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile | types.DeleteFile):
            uris.append(change.uri)
        elif isinstance(change, types.RenameFile):
            uris.extend([change.old_uri, change.new_uri])
        else:
            uris.append(change.text_document.uri)
    return uris


def _inside(uri: str, root: Path) -> bool:
    """Whether the file a URI names, every symlink resolved, lies inside `root`."""
    from urllib.parse import unquote

    real = Path(unquote(uri.removeprefix("file://"))).resolve()
    return real.is_relative_to(root.resolve())


def test_an_import_through_a_link_out_of_the_workspace_is_outside_and_never_created(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "ws"
    _tree(root, {"AGENTS.md": "Read @out/new.md first\n"}, {"out": str(elsewhere)})
    ws = workspace_of(open_host(str(root)).snapshot())
    codes = {f.code for f in analysis.check(ws) if f.path == "AGENTS.md"}
    assert "import-outside-workspace" in codes and "broken-import" not in codes
    actions = _actions(ws, "AGENTS.md", "import-outside-workspace")
    assert all(_inside(uri, root) for a in actions for uri in _targets(a))
    assert not [a for a in actions if a.title.startswith("Create")]


def test_a_read_grant_is_not_a_write_grant(tmp_path):
    """The user granted reading `elsewhere` (allowImportsFrom): the missing file there is a
    broken import, but no action creates it — a read grant is not a write grant."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "ws"
    _tree(root, {"AGENTS.md": "Read @out/new.md first\n"}, {"out": str(elsewhere)})
    ws = workspace_of(open_host(str(root), allow=[str(elsewhere)]).snapshot())
    actions = _actions(ws, "AGENTS.md", "broken-import")
    assert actions  # the suppression is still offered: it edits AGENTS.md, inside
    for action in actions:
        assert all(_inside(uri, root) for uri in _targets(action)), action.title
    assert not list(elsewhere.iterdir())


def test_a_missing_file_inside_is_still_offered_for_creation(tmp_path):
    root = tmp_path / "ws"
    _tree(root, {"AGENTS.md": "Read @docs/new.md first\n", "docs/keep.md": "k\n"}, {})
    ws = workspace_of(open_host(str(root)).snapshot())
    actions = _actions(ws, "AGENTS.md", "broken-import")
    created = [a for a in actions if a.edit and a.edit.document_changes]
    assert created and _targets(created[0]) == [(root / "docs/new.md").as_uri()]


def test_a_file_reached_through_a_link_out_is_not_edited(tmp_path):
    """AGENTS.md is a link to a file outside: no suppression or fix edits it (creating the
    missing file it names, inside the workspace, is still offered)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "shared.md").write_text("Read @docs/missing.md\n")
    root = tmp_path / "ws"
    _tree(root, {"docs/keep.md": "k\n"}, {"AGENTS.md": str(elsewhere / "shared.md")})
    ws = workspace_of(open_host(str(root), allow=[str(elsewhere)]).snapshot())
    found = [f for f in analysis.check(ws) if f.path == "AGENTS.md"]
    for finding in found:
        diagnostic = types.Diagnostic(
            range=to_range(ws.document("AGENTS.md").lines, finding.span, "utf-16"),
            message=finding.message, code=finding.code, source="rulemap")
        actions = code_actions(ws, "AGENTS.md", diagnostic.range, [diagnostic], "utf-16")
        assert not [a for a in actions if a.title.startswith("Suppress")]
        for action in actions:
            for uri in _targets(action):
                assert _inside(uri, root), action.title


def test_a_rename_edits_one_real_file_once_whatever_its_names(tmp_path):
    """pkg/AGENTS.md is real; pkg/CLAUDE.md and docs/alias.md are links to it. Renaming the
    file it imports gives exactly one edit of the real file, which applies cleanly."""
    root = tmp_path / "ws"
    _tree(
        root,
        {"pkg/AGENTS.md": "Read @notes.md and @../shared/style.md\n", "pkg/notes.md": "n\n",
         "docs/notes.md": "d\n", "shared/style.md": "s\n", "AGENTS.md": "@docs/alias.md\n"},
        {"pkg/CLAUDE.md": "AGENTS.md", "docs/alias.md": "../pkg/AGENTS.md"},
    )
    ws = workspace_of(open_host(str(root)).snapshot())
    for renames in ([("pkg/notes.md", "pkg/renamed.md")],
                    [("shared/style.md", "shared/voice.md")]):
        edit = will_rename_files(ws, renames, "utf-16")
        assert edit is not None and edit.changes is not None
        real = (root / "pkg/AGENTS.md").resolve()
        edited = [uri for uri in edit.changes if Path(uri.removeprefix("file://")).resolve()
                  == real]
        assert edited == [(root / "pkg/AGENTS.md").as_uri()], edit.changes.keys()
        text = apply_edits((root / "pkg/AGENTS.md").read_text(), list(edit.changes[edited[0]]))
        if renames[0][0] == "pkg/notes.md":
            assert text == "Read @renamed.md and @../shared/style.md\n"
        else:
            assert text == "Read @notes.md and @../shared/voice.md\n"


def test_a_rename_never_edits_a_file_outside(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "ws"
    _tree(root, {"docs/guide.md": "g\n"}, {})
    (elsewhere / "shared.md").write_text(f"@{root}/docs/guide.md\n")
    (root / "AGENTS.md").symlink_to(elsewhere / "shared.md")
    ws = workspace_of(open_host(str(root), allow=[str(elsewhere)]).snapshot())
    edit = will_rename_files(ws, [("docs/guide.md", "docs/manual.md")], "utf-16")
    assert edit is None or not edit.changes
