from __future__ import annotations

from feature_api import will_rename_files
from feature_helpers import apply_edits, ws_of

from rulemap.workspace import Workspace


def applied(ws: Workspace, renames, encoding: str = "utf-16") -> dict[str, str]:
    """Every edited document's new text, keyed by its (old) key."""
    edit = will_rename_files(ws, renames, encoding)
    if edit is None:
        return {}
    assert edit.changes is not None and edit.document_changes is None
    out = {}
    for uri, edits in edit.changes.items():
        key = uri.removeprefix("file:///w/").replace("%20", " ")
        out[key] = apply_edits(ws.document(key).text, list(edits), encoding)
    return out


FILES = {
    "AGENTS.md": "🎉 see @docs/guide.md and @./docs/guide.md @docs/other.md\n",
    "CLAUDE.md": "@/w/docs/guide.md\n",
    "docs/guide.md": "@other.md @../CLAUDE.md\n",
    "docs/other.md": "o\n",
    "pkg/AGENTS.md": "@../docs/guide.md\n",
}


def test_rename_a_file_updates_every_import_in_its_style():
    ws = ws_of(FILES)
    result = applied(ws, [("docs/guide.md", "docs/manual.md")])
    assert result == {
        "AGENTS.md": "🎉 see @docs/manual.md and @./docs/manual.md @docs/other.md\n",
        "CLAUDE.md": "@/w/docs/manual.md\n",
        "pkg/AGENTS.md": "@../docs/manual.md\n",
    }


def test_utf8_ranges():
    ws = ws_of(FILES)
    result = applied(ws, [("docs/guide.md", "docs/manual.md")], "utf-8")
    assert result["AGENTS.md"] == "🎉 see @docs/manual.md and @./docs/manual.md @docs/other.md\n"


def test_move_a_file_rewrites_its_own_relative_imports():
    ws = ws_of(FILES)
    result = applied(ws, [("docs/guide.md", "guides/deep/guide.md")])
    assert result["docs/guide.md"] == "@../../docs/other.md @../../CLAUDE.md\n"
    assert result["pkg/AGENTS.md"] == "@../guides/deep/guide.md\n"
    assert result["CLAUDE.md"] == "@/w/guides/deep/guide.md\n"


def test_move_a_directory():
    ws = ws_of(FILES)
    result = applied(ws, [("docs", "handbook/docs")])
    assert result["AGENTS.md"] == (
        "🎉 see @handbook/docs/guide.md and @./handbook/docs/guide.md @handbook/docs/other.md\n"
    )
    # inside the moved directory, `@other.md` stays; `@../CLAUDE.md` is one level deeper now
    assert result["docs/guide.md"] == "@other.md @../../CLAUDE.md\n"
    assert "docs/other.md" not in result


def test_spaces_are_escaped():
    ws = ws_of({"AGENTS.md": "@a.md\n", "a.md": "x"})
    assert applied(ws, [("a.md", "my notes/a b.md")]) == {"AGENTS.md": "@my\\ notes/a\\ b.md\n"}


def test_rules_importing_and_home_imports():
    files = {
        ".claude/rules/r.md": "---\npaths: ['**']\n---\n@../../docs/x.md\n",
        "docs/x.md": "x",
        "AGENTS.md": "@~/notes.md",
    }
    ws = ws_of(files)
    assert applied(ws, [("docs/x.md", "docs/y.md")]) == {
        ".claude/rules/r.md": "---\npaths: ['**']\n---\n@../../docs/y.md\n",
    }


def test_nothing_to_do():
    ws = ws_of(FILES)
    assert will_rename_files(ws, [("docs/unused.txt", "docs/u.txt")]) is None
    assert will_rename_files(ws, [("docs/guide.md", "docs/guide.md")]) is None
    assert will_rename_files(ws, []) is None
    assert will_rename_files(ws, [("", "x")]) is None
    # a broken import stays broken: nothing points at a file that does not exist
    broken = ws_of({"AGENTS.md": "@gone.md"})
    assert will_rename_files(broken, [("gone.md", "here.md")]) is None


def test_edits_of_several_folders_merge_into_one():
    """A rename that moves files of two workspace folders is answered with one edit."""
    from lsprotocol import types

    from rulemap.lsp.features import merged_edits

    def edit(uri: str, text: str) -> types.WorkspaceEdit:
        span = types.Range(types.Position(0, 0), types.Position(0, 1))
        return types.WorkspaceEdit(changes={uri: [types.TextEdit(span, text)]})

    first, second = edit("file:///a/AGENTS.md", "x"), edit("file:///b/AGENTS.md", "y")
    assert merged_edits([]) is None
    assert merged_edits([first]) is first
    both = merged_edits([first, second, edit("file:///a/AGENTS.md", "z")])
    assert both is not None and both.changes is not None
    assert [e.new_text for e in both.changes["file:///a/AGENTS.md"]] == ["x", "z"]
    assert [e.new_text for e in both.changes["file:///b/AGENTS.md"]] == ["y"]
    assert both.document_changes is None
