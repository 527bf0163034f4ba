from __future__ import annotations

from feature_api import code_lenses, document_symbols, workspace_symbols
from feature_helpers import rng, ws_of
from lsprotocol import types

FILES = {
    "AGENTS.md": "x" * 3140,
    "CLAUDE.md": "@docs/shared.md\n",
    "docs/shared.md": "shared\n",
    "pkg/AGENTS.md": "pkg\n",
    "pkg/a.ts": "",
    "pkg/sub/b.ts": "",
    "other/c.ts": "",
    ".claude/rules/ts.md": "---\npaths: '**/*.ts'\n---\nts rule\n",
    ".claude/rules/all.md": "always\n",
    ".claude/rules/bad.md": "---\npaths: [\n---\nx\n",
    "pkg/.claude/rules/deep.md": "deep\n",
}


def title(ws, key: str) -> str:
    [lens] = code_lenses(ws, key)
    assert lens.command is not None
    return lens.command.title


def test_code_lens_titles():
    ws = ws_of(FILES)
    total = len(ws.files)
    assert title(ws, "AGENTS.md") == f"loaded for {total} files · 3.1k chars"
    assert title(ws, "pkg/AGENTS.md") == "loaded for 4 files · 4 chars"  # everything below pkg/
    assert title(ws, ".claude/rules/ts.md") == "matches 3 files · 8 chars"
    assert title(ws, ".claude/rules/all.md") == f"loaded for every file ({total}) · 7 chars"
    assert title(ws, ".claude/rules/bad.md").startswith("never loaded: its frontmatter is invalid")
    assert title(ws, "pkg/.claude/rules/deep.md").startswith("never loaded: `pkg/.claude/rules`")
    assert title(ws, "docs/shared.md") == "imported by 1 file · 7 chars"
    assert code_lenses(ws, "pkg/a.ts") == []


def test_code_lens_with_cwd_and_command():
    ws = ws_of(FILES, cwd="pkg")
    assert title(ws, "pkg/AGENTS.md") == f"loaded for {len(ws.files)} files · 4 chars"
    [lens] = code_lenses(ws, "pkg/.claude/rules/deep.md")
    assert lens.command is not None
    assert lens.command.command == "rulemap.showReferences"
    assert lens.command.arguments == [
        "file:///w/pkg/.claude/rules/deep.md", {"line": 0, "character": 0},
    ]
    assert rng(lens.range) == (0, 0, 0, 0)
    [bare] = code_lenses(ws, "AGENTS.md", command=None)
    assert bare.command is not None and bare.command.command == ""


def test_code_lens_nested_outside_cwd_and_imported_count():
    files = {**FILES, "AGENTS.md": "@docs/shared.md", "other/AGENTS.md": "o"}
    ws = ws_of(files, cwd="pkg")
    assert title(ws, "other/AGENTS.md").startswith("never loaded: `other/` is outside the cwd")
    assert title(ws, "docs/shared.md") == "imported by 2 files · 7 chars"
    assert title(ws, "CLAUDE.md").endswith("16 chars")


DOC = """---
description: Style
paths:
  - "src/**/*.ts"
  - lib/*.js
---
# Top

Intro @docs/a.md

## Setup

Run @missing.md

```
# not a heading
```

### Deep
## Usage
Second title
------------

@docs/b.md
"""


def test_document_symbols_hierarchy():
    ws = ws_of({".claude/rules/r.md": DOC, "docs/a.md": "", "docs/b.md": ""})
    symbols = document_symbols(ws, ".claude/rules/r.md")
    assert [s.name for s in symbols] == ["frontmatter", "Top"]
    fm = symbols[0]
    assert [c.name for c in fm.children or []] == ["description", "paths"]
    paths = (fm.children or [])[1]
    assert [g.name for g in paths.children or []] == ["src/**/*.ts", "lib/*.js"]
    assert rng(paths.range) == (2, 0, 4, 12)
    top = symbols[1]
    # a setext `---` heading is level 2: a sibling of "Usage"
    assert [c.name for c in top.children or []] == ["@docs/a.md", "Setup", "Usage", "Second title"]
    setup = (top.children or [])[1]
    assert [c.name for c in setup.children or []] == ["@missing.md", "Deep"]
    # relative to the rule's directory
    assert (setup.children or [])[0].detail == ".claude/rules/missing.md (missing)"
    usage = (top.children or [])[2]
    assert usage.children is None
    second = (top.children or [])[3]
    assert second.detail == "##"
    assert [c.name for c in second.children or []] == ["@docs/b.md"]
    assert rng(top.range)[0] == 6 and rng(top.range)[2] == len(DOC.split("\n")) - 1
    assert setup.range.end.line == 18  # up to the line before "## Usage"


def test_document_symbol_columns_utf16_utf8():
    ws = ws_of({"AGENTS.md": "# 🎉 Hi\n日本 @x.md\n"})
    s16 = document_symbols(ws, "AGENTS.md", "utf-16")
    s8 = document_symbols(ws, "AGENTS.md", "utf-8")
    imp16 = (s16[0].children or [])[0]
    imp8 = (s8[0].children or [])[0]
    assert rng(imp16.selection_range) == (1, 3, 1, 8)
    assert rng(imp8.selection_range) == (1, 7, 1, 12)
    assert rng(s16[0].selection_range) == (0, 0, 0, 7)
    assert rng(s8[0].selection_range) == (0, 0, 0, 9)


def test_document_symbols_of_non_documents():
    ws = ws_of({"a.ts": "# x", "AGENTS.md": b"\x00"})
    assert document_symbols(ws, "a.ts") == []
    assert document_symbols(ws, "AGENTS.md") == []


def test_workspace_symbols():
    ws = ws_of(FILES)
    every = workspace_symbols(ws, "")
    assert {s.name for s in every} == set(ws.all_documents())
    rules = workspace_symbols(ws, "rules/ts")
    assert [s.name for s in rules] == [".claude/rules/ts.md"]
    assert rules[0].container_name == "rule (path-scoped)"
    assert isinstance(rules[0].location, types.Location)
    assert rules[0].location.uri == "file:///w/.claude/rules/ts.md"
    assert [s.name for s in workspace_symbols(ws, "PKGAG")] == ["pkg/AGENTS.md"]
    assert workspace_symbols(ws, "zzz") == []
