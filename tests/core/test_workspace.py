from core_helpers import make_ws

from rulemap import analysis


def rows(explanation):
    return [(f.path, f.reason, f.imported_by, f.depth) for f in explanation.files]


def codes(ws):
    return sorted((f.path, f.code) for f in analysis.check(ws))


def test_order_project_rules_nested_scoped():
    ws = make_ws(
        {
            "AGENTS.md": "root @docs/a.md",
            "CLAUDE.md": "claude",
            "docs/a.md": "a",
            ".claude/rules/z.md": "always z",
            ".claude/rules/a.md": "always a",
            ".claude/rules/api.md": "---\npaths: ['pkg/**/*.ts']\n---\napi",
            "pkg/AGENTS.md": "pkg",
            "pkg/sub/CLAUDE.md": "sub",
            "pkg/sub/x.ts": "",
        }
    )
    assert rows(analysis.explain(ws, "pkg/sub/x.ts")) == [
        ("AGENTS.md", "project", None, 0),
        ("docs/a.md", "import", "AGENTS.md", 1),
        ("CLAUDE.md", "project", None, 0),
        (".claude/rules/a.md", "rule", None, 0),
        (".claude/rules/z.md", "rule", None, 0),
        ("pkg/AGENTS.md", "nested", None, 0),
        ("pkg/sub/CLAUDE.md", "nested", None, 0),
        (".claude/rules/api.md", "scoped", None, 0),
    ]


def test_budget_cut_and_left_out_and_notice():
    ws = make_ws({"AGENTS.md": "a" * 6, "CLAUDE.md": "b" * 6, "CLAUDE.local.md": "c"}, maxChars=10)
    e = analysis.explain(ws)
    assert [(f.path, f.chars, f.cut) for f in e.files] == [
        ("AGENTS.md", 6, False),
        ("CLAUDE.md", 4, True),
    ]
    assert e.left_out == ["CLAUDE.local.md"]
    assert e.total_chars == 10
    assert e.render().endswith("Cut: CLAUDE.md. Left out: CLAUDE.local.md.]")


def test_incremental_update_fixes_broken_import():
    ws = make_ws({"AGENTS.md": "see @docs/a.md"})
    assert ("AGENTS.md", "broken-import") in codes(ws)
    ws.reader.files["/w/docs/a.md"] = b"now here"
    touched = ws.update(created=["docs/a.md"])
    assert "AGENTS.md" in touched
    assert codes(ws) == []
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md", "docs/a.md"]


def test_incremental_edit_of_a_document():
    ws = make_ws({"AGENTS.md": "fine"})
    assert codes(ws) == []
    ws.reader.files["/w/AGENTS.md"] = b"@missing.md"
    ws.update(changed=["AGENTS.md"])
    assert codes(ws) == [("AGENTS.md", "broken-import")]


def test_new_rule_file_is_indexed_and_deleted_one_dropped():
    ws = make_ws({"AGENTS.md": "x", "src/a.ts": ""})
    ws.reader.files["/w/.claude/rules/r.md"] = b"---\npaths: ['src/*.ts']\n---\nr"
    ws.update(created=[".claude/rules/r.md"])
    assert [f.path for f in analysis.explain(ws, "src/a.ts").files][-1] == ".claude/rules/r.md"
    del ws.reader.files["/w/src/a.ts"]
    ws.update(deleted=["src/a.ts"])
    assert ws.rule_matches(".claude/rules/r.md") == []
    assert (".claude/rules/r.md", "unmatched-glob") in codes(ws)


def test_symlinked_claude_md_is_read_once():
    ws = make_ws({"AGENTS.md": "x"}, symlinks={"CLAUDE.md": "AGENTS.md"})
    e = analysis.explain(ws)
    assert [f.path for f in e.files] == ["AGENTS.md"]
    assert [(s.path, s.code) for s in e.skipped] == [("CLAUDE.md", "duplicate-load")]


def test_import_out_through_symlink_is_skipped():
    ws = make_ws(
        {"AGENTS.md": "@link/x.md", "/outside/x.md": "secret"}, symlinks={"link": "/outside"}
    )
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md"]
    assert ("AGENTS.md", "import-outside-workspace") in codes(ws)


def test_allow_imports_from_home():
    # granted by the user (the core's Config field; a repository's own key is ignored, see
    # test_trust.py)
    from rulemap.analysis import new_workspace
    from rulemap.config import Config
    from rulemap.readers import MemoryReader

    reader = MemoryReader("/w", {"AGENTS.md": "@~/notes/x.md", "/home/u/notes/x.md": "mine"})
    ws = new_workspace(reader, Config(allow_imports_from=("~/notes",)), home="/home/u")
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md", "/home/u/notes/x.md"]


def test_hop_limit():
    files = {"AGENTS.md": "@f1.md"}
    for i in range(1, 7):
        files[f"f{i}.md"] = f"@f{i + 1}.md"
    files["f7.md"] = "end"
    ws = make_ws(files)
    e = analysis.explain(ws)
    assert [f.depth for f in e.files] == [0, 1, 2, 3, 4]
    deep = [f for f in analysis.check(ws) if f.code == "import-too-deep"]
    assert [(f.path, f.span.start.col) for f in deep] == [("f4.md", 0)]


def test_unreachable_rule_below_cwd():
    ws = make_ws({"AGENTS.md": "x", "pkg/.claude/rules/r.md": "rule", "pkg/a.ts": ""})
    assert ("pkg/.claude/rules/r.md", "unreachable-rule") in codes(ws)
    ws2 = make_ws({"AGENTS.md": "x", "pkg/.claude/rules/r.md": "rule", "pkg/a.ts": ""}, cwd="pkg")
    assert ("pkg/.claude/rules/r.md", "unreachable-rule") not in codes(ws2)
    assert [f.path for f in analysis.explain(ws2).files] == ["AGENTS.md", "pkg/.claude/rules/r.md"]


def test_budget_overflow_names_target():
    ws = make_ws(
        {
            "AGENTS.md": "a" * 50,
            ".claude/rules/big.md": "---\npaths: ['src/**']\n---\n" + "b\n" * 40,
            "src/x.ts": "",
        },
        maxChars=80,
    )
    findings = [f for f in analysis.check(ws) if f.code == "budget-overflow"]
    assert len(findings) == 1
    assert findings[0].path == ".claude/rules/big.md"
    assert "src/x.ts" in findings[0].message and "cut at line" in findings[0].message


def test_a_start_up_overflow_counts_each_file_once():
    """The start-up load is in every target's load: a file it cuts is cut for each of the
    workspace's files once — 10 files are "(and 9 other files)", not 19."""
    files = {"AGENTS.md": "x" * 100, **{f"src/f{i}.ts": "" for i in range(9)}}
    ws = make_ws(files, maxChars=80)
    (finding,) = [f for f in analysis.check(ws) if f.code == "budget-overflow"]
    assert "(and 9 other files)" in finding.message, finding.message


def test_severity_override_and_off_and_ignore():
    files = {"AGENTS.md": "@nope.md", "other/AGENTS.md": "@gone.md"}
    ws = make_ws(files, severity={"broken-import": "warning"}, ignore=["other/**"])
    assert [(f.path, f.severity) for f in analysis.check(ws)] == [("AGENTS.md", "warning")]
    ws = make_ws(files, severity={"broken-import": "off"})
    assert analysis.check(ws) == []


def test_mastra_profile_nearest_first_and_cut():
    ws = make_ws({"AGENTS.md": "root", "a/CONTEXT.md": "ctx", "a/b/CLAUDE.md": ("line\n" * 1000)})
    e = analysis.explain(ws, "a/b/x.ts", profile="mastra")
    assert [f.path for f in e.files] == ["a/b/CLAUDE.md", "a/CONTEXT.md", "AGENTS.md"]
    # seed: cut at about maxTokens x 4 characters back to the last line break, then the
    # injector's truncation notice (the old sketch ended the text at the line break, no notice)
    kept, notice = e.files[0].text.split("\n\n")
    assert e.files[0].cut and len(kept) <= 4000 and kept.endswith("line")
    assert notice.startswith("[truncated")
