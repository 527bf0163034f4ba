"""One focused test per modelled fact of the `cogitator` profile (the default model), named in
the "Facts and sources" table of `docs/profiles/cogitator.md`. Each asserts the fact's own
behaviour through `explain`, so it fails when the fact changes."""

from __future__ import annotations

from core_helpers import make_ws

from rulemap import analysis


def explain(files, target=None, symlinks=None, cwd=None, **config):
    return analysis.explain(make_ws(files, symlinks, **config), target, cwd=cwd,
                            profile="cogitator")


def loaded(e):
    return [(f.path, f.reason) for f in e.files]


def test_default_files_per_directory_in_load_order_root_first():
    files = {name: name for name in ("CLAUDE.local.md", ".claude/CLAUDE.md", "CLAUDE.md",
                                     "AGENTS.md")}
    files.update({"src/CLAUDE.local.md": "l", "src/AGENTS.md": "a", "GEMINI.md": "not read"})
    e = explain(files, cwd="src")
    assert loaded(e) == [
        ("AGENTS.md", "project"), ("CLAUDE.md", "project"), (".claude/CLAUDE.md", "project"),
        ("CLAUDE.local.md", "project"), ("src/AGENTS.md", "project"),
        ("src/CLAUDE.local.md", "project"),
    ]


def test_unconditional_rules_follow_their_directorys_files_sorted_by_path():
    files = {"AGENTS.md": "a", ".claude/rules/z.md": "z", ".claude/rules/a/b.md": "b",
             ".claude/rules/s.md": "---\npaths: ['src/**']\n---\nscoped",
             "src/CLAUDE.md": "c"}
    e = explain(files, cwd="src")
    assert loaded(e) == [("AGENTS.md", "project"), (".claude/rules/a/b.md", "rule"),
                         (".claude/rules/z.md", "rule"), ("src/CLAUDE.md", "project")]


def test_nested_files_below_cwd_load_top_down_then_scoped_rules():
    files = {"AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/CLAUDE.md": "b", "x/AGENTS.md": "x",
             ".claude/rules/s.md": "---\npaths: ['a/**/*.ts']\n---\nscoped"}
    e = explain(files, "a/b/f.ts")
    assert loaded(e) == [("AGENTS.md", "project"), ("a/AGENTS.md", "nested"),
                         ("a/b/CLAUDE.md", "nested"), (".claude/rules/s.md", "scoped")]
    off = explain(files, "a/b/f.ts", nested=False)
    assert loaded(off) == [("AGENTS.md", "project"), (".claude/rules/s.md", "scoped")]


def test_rule_paths_as_a_list_or_one_comma_separated_string():
    files = {".claude/rules/list.md": "---\npaths:\n  - 'docs/**'\n  - '*.py'\n---\nl",
             ".claude/rules/str.md": "---\npaths: 'docs/**, src/**/*.{ts,tsx}'\n---\ns"}
    assert [f.path for f in explain(files, "src/x/y.tsx").files] == [".claude/rules/str.md"]
    assert [f.path for f in explain(files, "lib/deep/m.py").files] == [".claude/rules/list.md"]
    assert [f.path for f in explain(files, "docs/a.md").files] == [
        ".claude/rules/list.md", ".claude/rules/str.md"]


def test_identity_is_the_real_path_a_symlinked_alias_loads_once():
    e = explain({"AGENTS.md": "shared"}, symlinks={"CLAUDE.md": "AGENTS.md"})
    assert [f.path for f in e.files] == ["AGENTS.md"]
    assert [(s.path, s.code) for s in e.skipped] == [("CLAUDE.md", "duplicate-load")]


def test_imports_at_line_start_or_after_whitespace_not_in_code_or_mid_word():
    files = {"AGENTS.md": "@one.md\nsee @two.md\n`@three.md`\n```\n@four.md\n```\n"
                          "mail user@five.md\n",
             **{f"{n}.md": n for n in ("one", "two", "three", "four", "five")}}
    e = explain(files)
    assert [(f.path, f.reason, f.imported_by, f.depth) for f in e.files] == [
        ("AGENTS.md", "project", None, 0), ("one.md", "import", "AGENTS.md", 1),
        ("two.md", "import", "AGENTS.md", 1),
    ]


def test_imports_follow_their_file_depth_first_and_hop_4_loads_hop_5_does_not():
    files = {"AGENTS.md": "@h1.md", "h1.md": "@h2.md", "h2.md": "@h3.md", "h3.md": "@h4.md",
             "h4.md": "@h5.md", "h5.md": "five", "CLAUDE.md": "after the chain"}
    e = explain(files)
    assert [(f.path, f.depth) for f in e.files] == [
        ("AGENTS.md", 0), ("h1.md", 1), ("h2.md", 2), ("h3.md", 3), ("h4.md", 4),
        ("CLAUDE.md", 0),
    ]


def test_block_html_comments_outside_fences_are_not_brought():
    text = "keep\n<!-- hidden\nstill hidden -->\n   <!-- one line -->\n```\n<!-- code -->\n```\n"
    f = explain({"AGENTS.md": text}).files[0]
    assert f.text == "keep\n```\n<!-- code -->\n```\n"
    assert f.chars == len(f.text)


def test_max_chars_32000_shared_in_load_order_cut_at_the_limit_later_files_left_out():
    e = explain({"AGENTS.md": "a" * 31_990, "CLAUDE.md": "b" * 100, "CLAUDE.local.md": "c"})
    assert e.budget.to_json() == {"kind": "shared", "unit": "chars", "limit": 32_000}
    assert [(f.path, f.chars, f.cut) for f in e.files] == [
        ("AGENTS.md", 31_990, False), ("CLAUDE.md", 10, True)]
    assert e.files[1].text == "b" * 10 and e.left_out == ["CLAUDE.local.md"]
    assert e.notice == ("[Rulemap: instructions truncated at 32000 characters. Cut: CLAUDE.md. "
                        "Left out: CLAUDE.local.md.]")
