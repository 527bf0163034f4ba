from __future__ import annotations

from feature_api import completion
from feature_helpers import P, apply_edits, rng, ws_of
from lsprotocol import types

from rulemap import analysis

FILES = {
    "AGENTS.md": "# Root\n\nSee @\n",
    "docs/guide.md": "g",
    "docs/api/v1.md": "v1",
    "docs/my notes.md": "n",
    "pkg/AGENTS.md": "Also @../docs/\n",
    "pkg/src/a.ts": "",
    "pkg/src/b.ts": "",
    "pkg/src/c.tsx": "",
    "pkg/.claude/rules/r.md": "---\npaths:\n  - \n---\nbody\n",
}


def labels(result: types.CompletionList) -> list[str]:
    return [item.label for item in result.items]


def test_after_at_lists_files_and_directories():
    ws = ws_of(FILES)
    result = completion(ws, "AGENTS.md", P(2, 5))
    assert set(labels(result)) == {"docs/", "pkg/"}
    item = next(i for i in result.items if i.label == "docs/")
    assert item.kind == types.CompletionItemKind.Folder
    assert item.command is not None  # re-trigger to go on into the directory
    assert isinstance(item.text_edit, types.TextEdit)
    assert rng(item.text_edit.range) == (2, 5, 2, 5)


def test_inside_a_directory_with_escaped_spaces():
    ws = ws_of({**FILES, "AGENTS.md": "See @docs/gu\n"})
    result = completion(ws, "AGENTS.md", P(0, 12))
    assert labels(result) == ["api/", "guide.md", "my notes.md"]
    notes = next(i for i in result.items if i.label == "my notes.md")
    assert isinstance(notes.text_edit, types.TextEdit)
    assert notes.text_edit.new_text == "my\\ notes.md"
    assert rng(notes.text_edit.range) == (0, 10, 0, 12)
    text = apply_edits("See @docs/gu\n", [notes.text_edit])
    assert text == "See @docs/my\\ notes.md\n"
    # .md files sort before directories
    ordered = sorted(result.items, key=lambda i: i.sort_text or "")
    assert ordered[0].label == "guide.md"


def test_relative_to_the_importing_file():
    ws = ws_of(FILES)
    result = completion(ws, "pkg/AGENTS.md", P(0, 14))
    assert labels(result) == ["api/", "guide.md", "my notes.md"]
    here = completion(ws, "pkg/AGENTS.md", P(0, 6))
    assert "../" in labels(here)


def test_emoji_before_the_at_utf16_vs_utf8():
    text = "🎉 漢 @docs/g\n"
    ws = ws_of({**FILES, "AGENTS.md": text})
    r16 = completion(ws, "AGENTS.md", P(0, len("🎉 漢 @docs/g") + 1), "utf-16")
    r8 = completion(ws, "AGENTS.md", P(0, len("🎉 漢 @docs/g".encode())), "utf-8")
    assert labels(r16) == labels(r8) != []
    item16 = next(i for i in r16.items if i.label == "guide.md")
    item8 = next(i for i in r8.items if i.label == "guide.md")
    assert isinstance(item16.text_edit, types.TextEdit)
    assert isinstance(item8.text_edit, types.TextEdit)
    assert rng(item16.text_edit.range) == (0, 11, 0, 12)
    assert rng(item8.text_edit.range) == (0, 15, 0, 16)  # 🎉 is 4 bytes, 漢 3
    assert apply_edits(text, [item8.text_edit], "utf-8") == "🎉 漢 @docs/guide.md\n"


def test_not_an_import_position():
    ws = ws_of({**FILES, "AGENTS.md": "mail a@b and `@docs/` and\n```\n@docs/\n```\n"})
    assert completion(ws, "AGENTS.md", P(0, 8)).items == []  # a@b is not an import
    assert completion(ws, "AGENTS.md", P(0, 20)).items == []  # inside a code span
    assert completion(ws, "AGENTS.md", P(2, 6)).items == []  # fenced code
    assert completion(ws, "AGENTS.md", P(40, 0)).items == []
    assert completion(ws, "pkg/src/a.ts", P(0, 0)).items == []


def test_gitignored_files_are_not_offered(tmp_path):
    (tmp_path / ".gitignore").write_text("secret/\n*.log\n")
    (tmp_path / "AGENTS.md").write_text("@\n")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key.md").write_text("k")
    (tmp_path / "notes.md").write_text("n")
    (tmp_path / "debug.log").write_text("d")
    ws = analysis.open_workspace(str(tmp_path))
    assert set(labels(completion(ws, "AGENTS.md", P(0, 1)))) == {"notes.md", ".gitignore"}


def test_paths_list_completion_relative_to_owner():
    ws = ws_of(FILES, cwd="pkg")
    result = completion(ws, "pkg/.claude/rules/r.md", P(2, 4))
    got = labels(result)
    assert "src/**" in got and "src/" in got
    assert "**/*.ts" in got and "**/*.tsx" in got
    ts = next(i for i in result.items if i.label == "**/*.ts")
    assert ts.detail == "2 files"
    assert isinstance(ts.text_edit, types.TextEdit)
    assert ts.text_edit.new_text == '"**/*.ts"'  # unquoted `*` would be YAML alias syntax
    src = next(i for i in result.items if i.label == "src/**")
    assert isinstance(src.text_edit, types.TextEdit) and src.text_edit.new_text == "src/**"


def test_paths_completion_inside_directory_and_quotes():
    files = {**FILES, "pkg/.claude/rules/r.md": "---\npaths:\n  - 'src/\n---\nbody\n"}
    ws = ws_of(files)
    result = completion(ws, "pkg/.claude/rules/r.md", P(2, 9))
    got = labels(result)
    assert "src/**/*.ts" in got and "src/a.ts" in got
    item = next(i for i in result.items if i.label == "src/a.ts")
    assert isinstance(item.text_edit, types.TextEdit)
    assert item.text_edit.new_text == "src/a.ts"
    assert rng(item.text_edit.range) == (2, 5, 2, 9)


def test_paths_inline_and_flow():
    files = {**FILES, "pkg/.claude/rules/r.md": "---\ndescription: x\npaths: [src/a.ts, \n---\n"}
    ws = ws_of(files)
    assert "src/**" in labels(completion(ws, "pkg/.claude/rules/r.md", P(2, 19)))
    assert completion(ws, "pkg/.claude/rules/r.md", P(1, 14)).items == []  # other key


def test_no_paths_completion_outside_frontmatter_or_in_non_rules():
    ws = ws_of({**FILES, "AGENTS.md": "---\npaths:\n  - \n---\n"})
    assert completion(ws, "AGENTS.md", P(2, 4)).items == []
    assert completion(ws, "pkg/.claude/rules/r.md", P(4, 2)).items == []
