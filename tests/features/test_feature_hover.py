from __future__ import annotations

import pytest
from feature_api import hover
from feature_helpers import P, hover_text, rng, ws_of

from rulemap import analysis

# "日本 🎉 " is 5 code points, 6 UTF-16 units and 12 UTF-8 bytes before the `@`.
PREFIX = "日本 🎉 "
FILES = {
    "AGENTS.md": (
        f"# Project\n\n{PREFIX}@docs/guide.md and @docs/gide.md\n\nSee @CLAUDE.md, please.\n"
    ),
    "CLAUDE.md": "Claude notes\n",
    "docs/guide.md": "# Guide\n\nUse tabs.\n@deep.md\n",
    "docs/deep.md": "deep\n",
    ".claude/rules/ts.md": '---\npaths:\n  - "src/**/*.ts"\n  - lib/**/*.js\n---\n\nTS rule\n',
    "src/a.ts": "x",
    "src/b/c.ts": "y",
    "pkg/AGENTS.md": "pkg stuff\n",
    "pkg/x.py": "",
}


@pytest.fixture
def ws():
    return ws_of(FILES)


def test_import_hover_utf16_and_utf8_columns(ws):
    at16 = hover(ws, "AGENTS.md", P(2, 6), "utf-16")
    at8 = hover(ws, "AGENTS.md", P(2, 12), "utf-8")
    assert at16 is not None and at8 is not None
    assert rng(at16.range) == (2, 6, 2, 6 + len("@docs/guide.md"))
    assert rng(at8.range) == (2, 12, 2, 12 + len("@docs/guide.md"))
    assert hover_text(at16) == hover_text(at8)
    # code-point column 5 read as UTF-16 is just after the emoji: not on the import
    assert hover(ws, "AGENTS.md", P(2, 5), "utf-16") is None
    # UTF-8 byte 11 is the space before `@`
    assert hover(ws, "AGENTS.md", P(2, 11), "utf-8") is None


def test_import_hover_content(ws):
    text = hover_text(hover(ws, "AGENTS.md", P(2, 10)))
    assert "`@docs/guide.md`" in text
    assert "(file:///w/docs/guide.md)" in text
    assert "✓ exists" in text
    chars = len("# Guide\n\nUse tabs.\n@deep.md\n")
    assert f"{chars} chars ≈ {round(chars / 4)} tokens" in text
    assert "import hop 1" in text
    assert "```markdown\n# Guide\n\nUse tabs.\n@deep.md\n```" in text


def test_import_hover_second_hop_names_the_chain(ws):
    text = hover_text(hover(ws, "docs/guide.md", P(3, 2)))
    assert "import hop 2" in text
    assert "`AGENTS.md` → `docs/guide.md` → `docs/deep.md`" in text


def test_missing_import_suggests_closest(ws):
    line = FILES["AGENTS.md"].split("\n")[2]
    col = line.index("@docs/gide.md")
    text = hover_text(hover(ws, "AGENTS.md", P(2, col + 1 + 1), "utf-16"))
    assert "`docs/gide.md` does not exist" in text
    assert "did you mean `@docs/guide.md`?" in text


def test_import_past_max_depth_says_skipped():
    files = {"AGENTS.md": "@a.md", "a.md": "@b.md", "b.md": "@c.md", "c.md": "@d.md", "d.md": "x"}
    ws = ws_of(files, maxImportDepth=2)
    text = hover_text(hover(ws, "b.md", P(0, 1)))
    assert "skipped: import hop 3 is past maxImportDepth 2" in text


def test_import_duplicate_load_says_skipped():
    ws = ws_of({"AGENTS.md": "@CLAUDE.md", "CLAUDE.md": "@AGENTS.md"})
    text = hover_text(hover(ws, "CLAUDE.md", P(0, 1)))
    assert "skipped: import cycle" in text


def test_outside_and_directory_imports():
    ws = ws_of({"AGENTS.md": "@../out.md @docs\n", "docs/a.md": "a"})
    assert "outside the workspace" in hover_text(hover(ws, "AGENTS.md", P(0, 2)))
    assert "is a directory" in hover_text(hover(ws, "AGENTS.md", P(0, 13)))


def test_glob_hover_counts_matches(ws):
    text = hover_text(hover(ws, ".claude/rules/ts.md", P(2, 8)))
    assert "`src/**/*.ts`" in text
    assert "matches 2 files" in text
    assert "[`src/a.ts`](file:///w/src/a.ts)" in text
    unmatched = hover_text(hover(ws, ".claude/rules/ts.md", P(3, 6)))
    assert "matches 0 files" in unmatched and "never loads this rule" in unmatched


def test_glob_hover_caps_examples_and_is_relative_to_owner():
    files = {f"pkg/src/f{i}.ts": "" for i in range(12)}
    files["pkg/.claude/rules/r.md"] = "---\npaths: src/*.ts\n---\nbody"
    ws = ws_of(files, cwd="pkg")
    text = hover_text(hover(ws, "pkg/.claude/rules/r.md", P(1, 9)))
    assert "matches 12 files (relative to `pkg/`)" in text
    assert "… and 7 more" in text


def test_paths_key_hover(ws):
    text = hover_text(hover(ws, ".claude/rules/ts.md", P(1, 2)))
    assert "2 files" in text


def test_source_file_hover_lists_load_in_order(ws):
    text = hover_text(hover(ws, "src/b/c.ts", P(0, 0)))
    lines = [line for line in text.split("\n") if line[:1].isdigit()]
    assert [line.split("[`")[1].split("`]")[0] for line in lines] == [
        "AGENTS.md", "docs/guide.md", "docs/deep.md", "CLAUDE.md", ".claude/rules/ts.md",
    ]
    assert "project instructions" in lines[0]
    assert "imported by `AGENTS.md` (hop 1)" in lines[1]
    assert "rule, `paths` matches `src/**/*.ts`" in lines[4]
    explanation = analysis.explain(ws, "src/b/c.ts")
    assert f"**{explanation.total_chars:,} of 32,000 chars**" in text
    assert "Skipped:" in text and "`docs/gide.md`: not found" in text


def test_source_file_hover_nested(ws):
    text = hover_text(hover(ws, "pkg/x.py", P(0, 3)))
    assert "nested: in `pkg/`" in text


def test_source_file_hover_modes(ws):
    assert hover(ws, "src/a.ts", P(0, 0)) is not None
    assert hover(ws, "src/a.ts", P(4, 2)) is None  # default firstLine
    assert hover(ws, "src/a.ts", P(4, 2), "utf-16", "everywhere")
    assert hover(ws, "src/a.ts", P(0, 0), "utf-16", "off") is None
    # a value the settings never let through falls back to the default
    assert hover(ws, "src/a.ts", P(0, 0), "utf-16", "sometimes") is not None  # type: ignore[arg-type]
    assert hover(ws, "src/a.ts", P(4, 2), "utf-16", "sometimes") is None  # type: ignore[arg-type]


def test_source_hover_budget_cut():
    ws = ws_of({"AGENTS.md": "a" * 80, "CLAUDE.md": "b" * 80, "src/x.ts": ""}, maxChars=100)
    text = hover_text(hover(ws, "src/x.ts", P(0, 0)))
    assert "**cut** by maxChars" in text
    assert "**100 of 100 chars** (100%)" in text


def test_no_hover_on_instruction_prose(ws):
    assert hover(ws, "AGENTS.md", P(0, 2)) is None
    assert hover(ws, "AGENTS.md", P(99, 0)) is None  # past the end


def test_robust_inputs(ws):
    # past the end of a line means its end (LSP): here the end of the last import
    assert hover(ws, "AGENTS.md", P(2, 10_000)) is not None
    assert hover(ws, "AGENTS.md", P(4, 10_000)) is None
    assert hover(ws, "does/not/exist.md", P(5, 5)) is None  # past the end of an empty doc
    assert hover(ws, "/elsewhere/x.ts", P(0, 0)) is None
    binary = ws_of({"AGENTS.md": b"\x00\x01", "x.ts": ""})
    assert hover(binary, "AGENTS.md", P(0, 0)) is None


def test_exceptions_become_none(monkeypatch):
    from rulemap.lsp.features import _util

    ws = ws_of(FILES)
    monkeypatch.setattr(_util, "RAISE", False)
    monkeypatch.setattr(analysis, "explain", lambda *a, **k: 1 / 0)
    assert hover(ws, "src/a.ts", P(0, 0)) is None


def test_source_hover_uses_the_profile_setting(ws):
    text = hover_text(hover(ws, "pkg/x.py", P(0, 0), "utf-16", {"profile": "mastra"}))
    assert "· mastra ·" in text
    assert "docs/guide.md" not in text  # mastra follows no imports
    unknown = hover_text(hover(ws, "pkg/x.py", P(0, 0), "utf-16", {"profile": "nope"}))
    assert "· cogitator ·" in unknown


def test_import_hover_load_status_variants():
    files = {
        "AGENTS.md": "a" * 50 + "\n@big.md\n",
        "big.md": "b" * 100,
        "pkg/.claude/rules/r.md": "@../../../big.md\n",
        "lonely.md": "@big.md\n",
    }
    ws = ws_of(files, maxChars=120)
    # AGENTS.md brings 59 chars, so big.md is cut to 61: its hover says so
    assert "import hop 1" in hover_text(hover(ws, "AGENTS.md", P(1, 2)))
    assert "cut to 61 chars by maxChars" in hover_text(hover(ws, "AGENTS.md", P(1, 2)))
    unreachable = hover_text(hover(ws, "pkg/.claude/rules/r.md", P(0, 3)))
    assert "`pkg/.claude/rules/r.md` itself never loads from the cwd" in unreachable
    assert "not read: nothing that loads imports `lonely.md`" in hover_text(
        hover(ws, "lonely.md", P(0, 2))
    )
    mastra = hover_text(hover(ws, "AGENTS.md", P(1, 2), "utf-16", {"profile": "mastra"}))
    assert "not followed: the `mastra` loader does not read imports" in mastra
