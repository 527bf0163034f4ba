"""The cursor profile's rules, pinned against Cursor's rules docs
(docs/profiles/cursor.md#facts-and-sources): `.cursor/rules/*.mdc` with `description`, `globs`
(string or list), `alwaysApply`; always / auto-attached / agent-requested / manual; nested
`.cursor/rules` scoped to their folder; legacy `.cursorrules`. AGENTS.md and `mdc:` links:
test_cursor_agents_md.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile, validate_options
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

CURSOR = get_profile("cursor")


def make(files: Mapping[str, str | bytes], **options: Any) -> Workspace:
    return new_workspace(MemoryReader("/w", files),
                     profile_options=validate_options({"cursor": options}, "test"))


def rows(ws: Workspace, target: str | None = None, cwd: str = ".") -> list[tuple[object, ...]]:
    return [(f.path, f.reason) for f in CURSOR.explain(ws, target, cwd).files]


def skipped(ws: Workspace, target: str | None = None, cwd: str = ".") -> dict[str, str]:
    return {s.path: s.code for s in CURSOR.explain(ws, target, cwd).skipped}


def found(ws: Workspace) -> list[tuple[str, int, int, str, str]]:
    return sorted((f.path, f.span.start.line, f.span.start.col, f.code, f.severity)
                  for f in CURSOR.findings(ws))


RULES = {
    ".cursorrules": "legacy",
    ".cursor/rules/z-always.mdc": "---\nalwaysApply: true\n---\nalways",
    ".cursor/rules/ts.mdc": "---\nglobs: src/**/*.ts\nalwaysApply: false\n---\nts",
    ".cursor/rules/db.mdc": "---\ndescription: Database conventions\n---\ndb",
    ".cursor/rules/manual.mdc": "---\nalwaysApply: false\n---\nmanual",
    "src/a.ts": "", "src/b.py": "",
}


def test_types_and_order():
    ws = make(RULES)
    assert rows(ws, "src/a.ts") == [
        (".cursorrules", "project"),
        (".cursor/rules/z-always.mdc", "rule"),
        (".cursor/rules/ts.mdc", "scoped"),
        (".cursor/rules/db.mdc", "requested"),
    ]
    assert rows(ws, "src/b.py") == [
        (".cursorrules", "project"), (".cursor/rules/z-always.mdc", "rule"),
        (".cursor/rules/db.mdc", "requested")]
    assert skipped(ws, "src/a.ts") == {".cursor/rules/manual.mdc": "unreachable-rule"}


def test_notes_and_text_without_header():
    e = CURSOR.explain(make(RULES), "src/a.ts", ".")
    notes = {f.path: f.note for f in e.files}
    assert notes[".cursor/rules/ts.mdc"] == "globs: src/**/*.ts"
    assert notes[".cursor/rules/db.mdc"] == (
        "agent-requested: loaded if the agent decides from its description: "
        "Database conventions")
    assert [f.text for f in e.files][1:3] == ["always", "ts"]


def test_options():
    assert [p for p, _ in rows(make(RULES, includeRequested=False, legacyCursorrules=False),
                               "src/a.ts")] == [".cursor/rules/z-always.mdc",
                                                ".cursor/rules/ts.mdc"]


def test_globs_string_comma_list_and_unquoted():
    files = {
        ".cursor/rules/a.mdc": "---\nglobs: *.ts,*.tsx\n---\na",  # Cursor writes these unquoted
        ".cursor/rules/b.mdc": "---\nglobs:\n  - 'docs/**'\n  - '*.md'\n---\nb",
        ".cursor/rules/c.mdc": "---\nglobs: ['lib/*.{js,mjs}']\n---\nc",
        "pkg/x.tsx": "", "docs/y.txt": "", "lib/z.mjs": "",
    }
    ws = make(files)
    assert rows(ws, "pkg/x.tsx") == [(".cursor/rules/a.mdc", "scoped")]  # slash-less: any depth
    assert rows(ws, "docs/y.txt") == [(".cursor/rules/b.mdc", "scoped")]
    assert rows(ws, "lib/z.mjs") == [(".cursor/rules/c.mdc", "scoped")]
    # the unquoted header is read as Cursor reads it, so it is not invalid; `*.ts` and `*.md`
    # match no file, next to globs that do
    assert found(ws) == [
        (".cursor/rules/a.mdc", 1, 7, "unmatched-glob", "information"),
        (".cursor/rules/b.mdc", 3, 4, "unmatched-glob", "information"),
    ]


def test_case_sensitive_globs():
    ws = make({".cursor/rules/a.mdc": "---\nglobs: src/*.ts\n---\na", "SRC/x.ts": ""})
    assert rows(ws, "SRC/x.ts") == []
    assert [c for *_, c, _ in found(ws)] == ["unmatched-glob"]


def test_nested_rules_scoped_to_their_folder():
    files = {
        "pkg/.cursor/rules/always.mdc": "---\nalwaysApply: true\n---\npkg always",
        "pkg/.cursor/rules/py.mdc": "---\nglobs: src/*.py\n---\npkg py",
        "pkg/src/a.py": "", "src/a.py": "",
    }
    ws = make(files)
    assert rows(ws, "pkg/src/a.py") == [("pkg/.cursor/rules/always.mdc", "rule"),
                                        ("pkg/.cursor/rules/py.mdc", "scoped")]
    assert rows(ws, "src/a.py") == []  # globs relative to pkg/, and only for files inside it
    assert rows(ws) == []
    assert rows(ws, cwd="pkg") == [("pkg/.cursor/rules/always.mdc", "rule")]
    assert found(ws) == []


def test_unreachable_rule_without_metadata():
    ws = make({".cursor/rules/none.mdc": "just text"})
    [finding] = CURSOR.findings(ws)
    assert finding.code == "unreachable-rule"
    assert "add `alwaysApply: true`, `globs`, or a `description`" in finding.message


def test_md_files_are_not_rules():
    files = {".cursor/rules/style.md": "---\nalwaysApply: true\n---\nx"}
    ws = make(files)
    assert rows(ws) == []
    assert skipped(ws) == {".cursor/rules/style.md": "unreachable-rule"}
    [finding] = CURSOR.findings(ws)
    assert (finding.code, "style.mdc" in finding.message) == ("unreachable-rule", True)
    assert rows(make(files, mdRules=True)) == [(".cursor/rules/style.md", "rule")]


def test_invalid_frontmatter():
    files = {".cursor/rules/bad.mdc": "---\nglobs: [a\n  b: c\n---\nbad",
             ".cursor/rules/type.mdc": "---\nglobs: 5\n---\nt",
             ".cursor/rules/flag.mdc": "---\nalwaysApply: 'yes'\ndescription: d\n---\nf"}
    ws = make(files)
    assert [(p, c, s) for p, _, _, c, s in found(ws)] == [
        (".cursor/rules/bad.mdc", "invalid-frontmatter", "error"),
        (".cursor/rules/flag.mdc", "invalid-frontmatter", "warning"),
        (".cursor/rules/type.mdc", "invalid-frontmatter", "error"),
    ]
    assert skipped(ws) == {".cursor/rules/bad.mdc": "invalid-frontmatter",
                           ".cursor/rules/type.mdc": "invalid-frontmatter"}
    # a non-boolean alwaysApply is not true: the rule is agent-requested by its description
    assert rows(ws) == [(".cursor/rules/flag.mdc", "requested")]


def test_empty_rule():
    ws = make({".cursor/rules/e.mdc": "---\nalwaysApply: true\n---\n", ".cursorrules": ""})
    assert rows(ws) == []
    assert skipped(ws) == {".cursor/rules/e.mdc": "empty-instructions",
                           ".cursorrules": "empty-instructions"}
    assert [c for *_, c, _ in found(ws)] == ["empty-instructions", "empty-instructions"]


def test_no_imports():
    ws = make({".cursor/rules/a.mdc": "---\nalwaysApply: true\n---\n@docs/x.md", "docs/x.md": ""})
    assert rows(ws) == [(".cursor/rules/a.mdc", "rule")]


def test_detect_and_reads():
    assert CURSOR.detect(make({".cursorrules": "x"}))
    assert CURSOR.detect(make({"pkg/.cursor/rules/a.mdc": "x"}))
    assert not CURSOR.detect(make({"AGENTS.md": "x"}))
    ws = make({})
    assert CURSOR.reads(ws, "pkg/.cursor/rules/deep/a.mdc")
    assert not CURSOR.reads(ws, ".cursor/rules/a.md")
    assert not CURSOR.reads(ws, "docs/a.mdc")
    assert not CURSOR.reads(make({}, legacyCursorrules=False), ".cursorrules")


def _state(ws: Workspace) -> tuple[object, ...]:
    return (sorted((f.path, f.span, f.code, f.message) for f in CURSOR.findings(ws)),
            rows(ws, "src/a.ts"), rows(ws))


def test_edits_give_what_a_fresh_workspace_gives():
    files = dict(RULES)
    ws = make(files)
    _state(ws)
    edits = [
        (".cursor/rules/ts.mdc", "---\nglobs: nothing/**\n---\nts"),
        (".cursor/rules/manual.mdc", "---\nalwaysApply: true\n---\nnow always"),
        (".cursor/rules/db.mdc", "---\nglobs: [x\n  y: 1\n---\nbroken"),
        (".cursorrules", ""),
        (".cursor/rules/ts.mdc", "---\nglobs: '*.ts'\n---\nts again"),
    ]
    for key, text in edits:
        files[key] = text
        ws.reader.files["/w/" + key] = text.encode()
        ws.update(changed={key})
        assert _state(ws) == _state(make(files)), key
