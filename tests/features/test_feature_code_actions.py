from __future__ import annotations

from feature_api import code_actions
from feature_helpers import R, apply_edits, ws_of
from lsprotocol import types

from rulemap import analysis
from rulemap.lsp.convert import to_range
from rulemap.model import Finding
from rulemap.workspace import Workspace


def diagnostic(ws: Workspace, finding: Finding, encoding: str = "utf-16") -> types.Diagnostic:
    lines = ws.document(finding.path).lines
    return types.Diagnostic(
        range=to_range(lines, finding.span, encoding),  # type: ignore[arg-type]
        message=finding.message,
        code=finding.code,
        source="rulemap",
    )


def findings(ws: Workspace, path: str, code: str) -> list[Finding]:
    return [f for f in analysis.check(ws) if f.path == path and f.code == code]


def actions_for(ws: Workspace, path: str, code: str, encoding: str = "utf-16"):
    found = findings(ws, path, code)
    assert found, f"no {code} finding"
    diag = diagnostic(ws, found[0], encoding)
    return diag, code_actions(ws, path, diag.range, [diag], encoding)  # type: ignore[arg-type]


def edited(ws: Workspace, path: str, action: types.CodeAction, encoding: str = "utf-16") -> str:
    assert action.edit is not None and action.edit.changes is not None
    [(uri, edits)] = action.edit.changes.items()
    assert uri == f"file:///w/{path}".replace(" ", "%20")
    return apply_edits(ws.document(path).text, list(edits), encoding)


def test_broken_import_closest_match_create_and_suppress_utf16():
    text = "# T\n\n🎉 日本 see @docs/gide.md here\n"
    files = {"AGENTS.md": text, "docs/guide.md": "g"}
    ws = ws_of(files)
    diag, actions = actions_for(ws, "AGENTS.md", "broken-import")
    titles = [a.title for a in actions]
    assert titles == [
        "Change to `@docs/guide.md`",
        "Create `docs/gide.md`",
        "Suppress `broken-import` on this line",
    ]
    fix, create, suppress = actions
    assert fix.is_preferred and fix.kind == types.CodeActionKind.QuickFix
    assert fix.diagnostics == [diag]
    assert edited(ws, "AGENTS.md", fix) == "# T\n\n🎉 日本 see @docs/guide.md here\n"
    assert create.edit is not None and create.edit.document_changes is not None
    [change] = create.edit.document_changes
    assert isinstance(change, types.CreateFile)
    assert change.uri == "file:///w/docs/gide.md"
    assert change.options is not None and change.options.ignore_if_exists
    after = edited(ws, "AGENTS.md", suppress)
    assert after == (
        "# T\n\n<!-- rulemap-disable-next-line broken-import -->\n🎉 日本 see @docs/gide.md here\n"
    )
    assert findings(ws_of({**files, "AGENTS.md": after}), "AGENTS.md", "broken-import") == []


def test_utf8_diagnostics_match_too():
    files = {"AGENTS.md": "🎉 日本 @docs/gide.md\n", "docs/guide.md": "g"}
    ws = ws_of(files)
    _, actions = actions_for(ws, "AGENTS.md", "broken-import", "utf-8")
    fix = actions[0]
    assert edited(ws, "AGENTS.md", fix, "utf-8") == "🎉 日本 @docs/guide.md\n"


def test_suspicious_import_strips_punctuation():
    files = {"AGENTS.md": "Read @docs/a.md, then go.\n", "docs/a.md": "c"}
    ws = ws_of(files)
    _, actions = actions_for(ws, "AGENTS.md", "suspicious-import")
    assert actions[0].title == "Change to `@docs/a.md`"
    assert edited(ws, "AGENTS.md", actions[0]) == "Read @docs/a.md then go.\n"


def test_unmatched_glob_fix_to_near_match():
    rule = "---\npaths:\n  - 'scr/**/*.ts'\n---\nbody\n"
    files = {".claude/rules/ts.md": rule, "src/b.ts": "", "AGENTS.md": "x"}
    ws = ws_of(files)
    _, actions = actions_for(ws, ".claude/rules/ts.md", "unmatched-glob")
    assert actions[0].title == "Change the glob to `src/**/*.ts`"
    after = edited(ws, ".claude/rules/ts.md", actions[0])
    assert after == "---\npaths:\n  - 'src/**/*.ts'\n---\nbody\n"
    assert findings(ws_of({**files, ".claude/rules/ts.md": after}), ".claude/rules/ts.md",
                    "unmatched-glob") == []


def test_suppression_in_frontmatter_is_file_level_after_the_fence():
    rule = "---\npaths:\n  - 'nothing/**'\n---\nbody\n"
    files = {".claude/rules/x.md": rule, "src/a.ts": "", "AGENTS.md": "x"}
    ws = ws_of(files)
    _, actions = actions_for(ws, ".claude/rules/x.md", "unmatched-glob")
    assert [a.title for a in actions] == ["Suppress `unmatched-glob` in this file"]
    after = edited(ws, ".claude/rules/x.md", actions[0])
    assert after == (
        "---\npaths:\n  - 'nothing/**'\n---\n<!-- rulemap-disable unmatched-glob -->\nbody\n"
    )
    ws2 = ws_of({**files, ".claude/rules/x.md": after})
    assert findings(ws2, ".claude/rules/x.md", "unmatched-glob") == []
    assert ws2.document(".claude/rules/x.md").brought == "body\n"


def test_suppression_extends_an_existing_directive():
    text = "<!-- rulemap-disable-next-line import-cycle -->\n@docs/none.md\n"
    ws = ws_of({"AGENTS.md": text})
    _, actions = actions_for(ws, "AGENTS.md", "broken-import")
    suppress = actions[-1]
    after = edited(ws, "AGENTS.md", suppress)
    assert after == (
        "<!-- rulemap-disable-next-line import-cycle, broken-import -->\n@docs/none.md\n"
    )
    assert findings(ws_of({"AGENTS.md": after}), "AGENTS.md", "broken-import") == []


def test_without_diagnostics_uses_findings_in_range():
    ws = ws_of({"AGENTS.md": "ok\n@docs/none.md\n", "docs/one.md": "x"})
    assert code_actions(ws, "AGENTS.md", R(0, 0, 0, 1), []) == []
    actions = code_actions(ws, "AGENTS.md", R(1, 3, 1, 3), [])
    assert "Suppress `broken-import` on this line" in [a.title for a in actions]
    assert all(a.diagnostics is None for a in actions)


def test_stale_or_foreign_diagnostics():
    ws = ws_of({"AGENTS.md": "ok\n@docs/none.md\n"})
    foreign = types.Diagnostic(range=R(1, 0, 1, 3), message="x", code="MD013", source="mdlint")
    assert code_actions(ws, "AGENTS.md", R(1, 0, 1, 3), [foreign]) == []
    stale = types.Diagnostic(range=R(1, 1, 1, 9), message="old", code="broken-import")
    assert code_actions(ws, "AGENTS.md", R(1, 0, 1, 3), [stale]) != []


def test_create_offered_only_while_missing_and_unreadable_doc():
    ws = ws_of({"AGENTS.md": "@notes/todo.md\n"})
    _, actions = actions_for(ws, "AGENTS.md", "broken-import")
    assert "Create `notes/todo.md`" in [a.title for a in actions]
    binary = ws_of({"AGENTS.md": b"\x00bin"})
    assert code_actions(binary, "AGENTS.md", R(0, 0, 0, 0), []) == []
    assert code_actions(binary, "missing.md", R(0, 0, 0, 0), []) == []


def test_code_actions_answer_from_the_published_findings_without_a_check(monkeypatch):
    """The server passes the findings it published: a code action request never runs the
    whole check (on the editor's event loop)."""
    ws = ws_of({"AGENTS.md": "See @docs/guide.md\n", "docs/guid.md": "g\n"})
    published = findings(ws, "AGENTS.md", "broken-import")
    ws.findings_cache = None

    def no_check(_ws: Workspace) -> list[Finding]:
        raise AssertionError("a code action ran the whole check")

    monkeypatch.setattr(analysis, "check", no_check)
    diag = diagnostic(ws, published[0])
    actions = code_actions(ws, "AGENTS.md", diag.range, [diag], "utf-16", published)  # type: ignore[arg-type]
    assert any("guid.md" in a.title for a in actions)
