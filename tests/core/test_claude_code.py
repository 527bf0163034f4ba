"""The claude-code profile, pinned against docs/profiles/claude-code.md (its facts and their
public sources) — through the core, on in-memory workspaces."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulemap.analysis import new_workspace
from rulemap.config import parse_config
from rulemap.model import Finding
from rulemap.profiles import get_profile
from rulemap.profiles.base import parse_options
from rulemap.profiles.claude_code.imports import tokens_of
from rulemap.profiles.cogitator.settings import IMPORTS
from rulemap.readers import MemoryReader
from rulemap.readers.local import LocalReader
from rulemap.text.markdown import scan
from rulemap.workspace import Workspace

PROFILE = get_profile("claude-code")


def make(
    files: Mapping[str, str | bytes],
    symlinks: Mapping[str, str] | None = None,
    *,
    cwd: str | None = None,
    profiles: tuple[str, ...] = ("cogitator", "claude-code"),
    home: Any = None,
    **options: Any,
) -> Workspace:
    config = parse_config({"cwd": cwd}, "test") if cwd else None
    return new_workspace(
        MemoryReader("/w", files, symlinks),
        config,
        home="/home/u",
        profiles=tuple(get_profile(p) for p in profiles),
        profile_options={"claude-code": parse_options(PROFILE, options, "test")},
        home_reader=home,
    )


def rows(ws: Workspace, target: str | None = None, cwd: str = ".") -> list[tuple[Any, ...]]:
    return [(f.path, f.reason, f.imported_by, f.depth)
            for f in PROFILE.explain(ws, target, cwd).files]


def paths(ws: Workspace, target: str | None = None, cwd: str = ".") -> list[str]:
    return [f.path for f in PROFILE.explain(ws, target, cwd).files]


def skipped(ws: Workspace, target: str | None = None, cwd: str = ".") -> dict[str, str]:
    return {s.path: s.code for s in PROFILE.explain(ws, target, cwd).skipped}


def found(ws: Workspace, code: str | None = None) -> list[Finding]:
    return [f for f in PROFILE.findings(ws) if code is None or f.code == code]


# ----- which files, in what order ------------------------------------------------------------


def test_per_directory_order_root_down_to_cwd():
    ws = make({
        "CLAUDE.local.md": "local", "CLAUDE.md": "root", ".claude/CLAUDE.md": "dot",
        ".claude/rules/z.md": "z", ".claude/rules/deep/a.md": "a",
        ".claude/rules/scoped.md": "---\npaths: ['src/**']\n---\ns",
        "pkg/CLAUDE.md": "pkg", "pkg/sub/CLAUDE.md": "below cwd",
    })
    assert rows(ws, cwd="pkg") == [
        ("CLAUDE.md", "project", None, 0),
        (".claude/CLAUDE.md", "project", None, 0),
        (".claude/rules/deep/a.md", "rule", None, 0),
        (".claude/rules/z.md", "rule", None, 0),
        ("CLAUDE.local.md", "project", None, 0),
        ("pkg/CLAUDE.md", "project", None, 0),
    ]
    explanation = PROFILE.explain(ws, None, "pkg")
    assert explanation.budget.kind == "none" and explanation.left_out == []
    assert explanation.notice is None


def test_nested_files_load_when_a_file_below_is_read():
    ws = make({"CLAUDE.md": "r", "a/CLAUDE.md": "a", "a/b/.claude/CLAUDE.md": "b",
               "a/b/CLAUDE.local.md": "bl", "other/CLAUDE.md": "o"})
    assert rows(ws, "a/b/c/x.ts") == [
        ("CLAUDE.md", "project", None, 0),
        ("a/CLAUDE.md", "nested", None, 0),
        ("a/b/.claude/CLAUDE.md", "nested", None, 0),
        ("a/b/CLAUDE.local.md", "nested", None, 0),
    ]
    assert paths(ws) == ["CLAUDE.md"]  # no target: nothing below cwd was read
    assert paths(ws, "other/x.ts", "a") == ["CLAUDE.md", "a/CLAUDE.md"]  # not below cwd


def test_rules_below_cwd_are_not_loaded():
    ws = make({"CLAUDE.md": "r", "pkg/.claude/rules/a.md": "a", "pkg/CLAUDE.md": "p"})
    assert paths(ws, "pkg/x.ts") == ["CLAUDE.md", "pkg/CLAUDE.md"]
    assert not PROFILE.reads(ws, "pkg/.claude/rules/a.md")


# ----- AGENTS.md -----------------------------------------------------------------------------


def test_agents_md_is_a_fallback_only_without_claude_files_in_cwd_or_above():
    ws = make({"AGENTS.md": "a", "pkg/AGENTS.md": "p", "pkg/lib/AGENTS.md": "l"})
    assert rows(ws, "pkg/lib/x.ts", "pkg") == [
        ("AGENTS.md", "project", None, 0),
        ("pkg/AGENTS.md", "project", None, 0),
        ("pkg/lib/AGENTS.md", "nested", None, 0),
    ]
    ws = make({"AGENTS.md": "a", "pkg/CLAUDE.local.md": "local", "pkg/AGENTS.md": "p"})
    assert paths(ws, cwd="pkg") == ["pkg/CLAUDE.local.md"]
    assert skipped(ws, cwd="pkg") == {"AGENTS.md": "instructions-shadowed",
                                      "pkg/AGENTS.md": "instructions-shadowed"}


def test_nested_agents_md_next_to_its_own_claude_md_is_not_read():
    ws = make({"AGENTS.md": "root", "pkg/CLAUDE.md": "c", "pkg/AGENTS.md": "p"})
    assert paths(ws, "pkg/x.ts") == ["AGENTS.md", "pkg/CLAUDE.md"]
    assert skipped(ws, "pkg/x.ts") == {"pkg/AGENTS.md": "instructions-shadowed"}


def test_shadowed_finding_names_the_fix_and_offers_it():
    ws = make({"CLAUDE.md": "# Claude\nUse pnpm.\n", "AGENTS.md": "# Agents\n"})
    (finding,) = found(ws, "instructions-shadowed")
    assert finding.path == "AGENTS.md" and finding.span.start.line == 0
    assert "AGENTS.md is not read here because `CLAUDE.md` exists" in finding.message
    assert "add `@AGENTS.md` to `CLAUDE.md`" in finding.message
    assert [r.path for r in finding.related] == ["CLAUDE.md"]
    (fix,) = finding.fixes
    assert (fix.kind, fix.path, fix.new_text) == ("replace", "CLAUDE.md", "\n@AGENTS.md\n")
    assert fix.span.start == fix.span.end and fix.span.start.line == 2  # after the last line
    # applying it makes the finding go away
    ws.reader.files["/w/CLAUDE.md"] = b"# Claude\nUse pnpm.\n\n@AGENTS.md\n"
    ws.update(changed=["CLAUDE.md"])
    assert found(ws, "instructions-shadowed") == []
    assert paths(ws) == ["CLAUDE.md", "AGENTS.md"]


def test_fix_text_depends_on_how_the_file_ends():
    no_newline = make({"CLAUDE.md": "text", "AGENTS.md": "a"})
    assert found(no_newline, "instructions-shadowed")[0].fixes[0].new_text == "\n\n@AGENTS.md\n"
    empty = make({"CLAUDE.md": "", "AGENTS.md": "a"})
    assert found(empty, "instructions-shadowed")[0].fixes[0].new_text == "@AGENTS.md\n"


def test_no_fix_where_appending_would_not_import():
    in_fence = make({"CLAUDE.md": "```\nexample\n", "AGENTS.md": "a"})
    assert found(in_fence, "instructions-shadowed")[0].fixes == []
    in_comment = make({"CLAUDE.md": "<!-- notes\n", "AGENTS.md": "a"})
    assert found(in_comment, "instructions-shadowed")[0].fixes == []
    linked = make({"shared/CLAUDE.md": "c", "AGENTS.md": "a"}, {"CLAUDE.md": "shared/CLAUDE.md"})
    assert found(linked, "instructions-shadowed")[0].fixes == []


def test_shadow_by_an_ancestor_suggests_a_claude_md_next_to_it():
    ws = make({"CLAUDE.md": "root", "pkg/AGENTS.md": "p"})
    (finding,) = found(ws, "instructions-shadowed")
    assert finding.path == "pkg/AGENTS.md" and finding.fixes == []
    assert "create `pkg/CLAUDE.md` containing `@AGENTS.md`" in finding.message


def test_claude_md_that_is_a_symlink_to_agents_md_shadows_nothing():
    ws = make({"AGENTS.md": "shared"}, {"CLAUDE.md": "AGENTS.md"})
    assert paths(ws) == ["CLAUDE.md"]
    assert found(ws, "instructions-shadowed") == []


def test_reads_by_name_and_place():
    ws = make({"CLAUDE.md": "c", "AGENTS.md": "a", "pkg/AGENTS.md": "p", "x/CLAUDE.local.md": "l",
               ".claude/rules/r.md": "r", "docs/notes.md": "n"})
    assert PROFILE.reads(ws, "CLAUDE.md") and PROFILE.reads(ws, "x/CLAUDE.local.md")
    assert PROFILE.reads(ws, ".claude/rules/r.md")
    assert not PROFILE.reads(ws, "AGENTS.md") and not PROFILE.reads(ws, "pkg/AGENTS.md")
    assert not PROFILE.reads(ws, "docs/notes.md")
    assert PROFILE.reads(make({"AGENTS.md": "a"}), "AGENTS.md")


def test_detect():
    assert not PROFILE.detect(make({"AGENTS.md": "a"}))
    for name in ("CLAUDE.md", "pkg/.claude/CLAUDE.md", "CLAUDE.local.md", ".claude/rules/a.md"):
        assert PROFILE.detect(make({name: "x"})), name


# ----- imports -------------------------------------------------------------------------------


def token_paths(text: str) -> list[str]:
    ws = make({"CLAUDE.md": text})
    return [t.path for t in tokens_of(ws.document("CLAUDE.md"), IMPORTS).tokens]


def test_import_dialect():
    assert token_paths("@a.md mid@word.md\t@b.md") == ["a.md", "b.md"]
    assert token_paths(r"@my\ notes.md") == ["my notes.md"]
    assert token_paths("@guide.md#setup") == ["guide.md"]
    assert token_paths("@#heading @@twice @~user @_x.md @1.md @-y.md @.hidden") == [
        "_x.md", "1.md", "-y.md", ".hidden"]
    assert token_paths(r"@a.md\nb") == ["a.md"]  # a backslash that escapes no space ends it
    assert token_paths("@scope/pkg @~/x.md @/abs/y.md @/") == ["scope/pkg", "~/x.md", "/abs/y.md"]
    assert token_paths("@docs/a.md, @b.md:") == ["docs/a.md,", "b.md:"]


def test_no_import_in_code_or_comments():
    text = ("`@span.md`\n\n```\n@fence.md\n```\n\n~~~\n@tilde.md\n~~~\n\n    @indented.md\n\n"
            "\t@tab.md\n\n<!-- @comment.md -->\n\ntext <!-- @inline.md --> @yes.md\n")
    assert token_paths(text) == ["yes.md"]
    # an indented line that continues a paragraph, or sits in a list, is prose
    assert token_paths("para\n    @cont.md\n\n- item\n\n    @list.md\n") == ["cont.md", "list.md"]
    # after a heading an indented line is code
    assert token_paths("# Head\n    @code.md\n") == []


def test_scan_default_is_unchanged_for_the_cogitator_dialect():
    text = "intro\n\n    @indented.md\n"
    assert [r.path for r in scan(text, imports=IMPORTS).imports] == ["indented.md"]
    assert [r.path for r in scan(text, indented_code=True, imports=IMPORTS).imports] == []


def test_imports_depth_first_four_hops_read_once():
    ws = make({"CLAUDE.md": "@h1.md @d1.md", "h1.md": "@h2.md", "h2.md": "@h3.md",
               "h3.md": "@h4.md", "h4.md": "@h5.md", "h5.md": "deep",
               "d1.md": "@d2.md @h2.md", "d2.md": "@CLAUDE.md"})
    assert rows(ws) == [
        ("CLAUDE.md", "project", None, 0),
        ("h1.md", "import", "CLAUDE.md", 1),
        ("h2.md", "import", "h1.md", 2),
        ("h3.md", "import", "h2.md", 3),
        ("h4.md", "import", "h3.md", 4),
        ("d1.md", "import", "CLAUDE.md", 1),
        ("d2.md", "import", "d1.md", 2),
    ]
    assert skipped(ws) == {"h5.md": "import-too-deep", "h2.md": "duplicate-load",
                           "CLAUDE.md": "import-cycle"}


def test_missing_directory_and_outside_targets_are_dropped():
    ws = make({"CLAUDE.md": "@gone.md @docs @../../etc/x.md @~/home.md", "docs/a.md": "a"})
    assert paths(ws) == ["CLAUDE.md"]
    assert skipped(ws) == {"gone.md": "broken-import", "docs": "broken-import",
                           "/etc/x.md": "import-outside-workspace",
                           "~/home.md": "import-outside-workspace"}


def test_only_text_extensions_are_followed():
    ws = make({"CLAUDE.md": "@r.mdc @p.mdx @Makefile @data.json @a.md",
               "r.mdc": "r", "p.mdx": "p", "Makefile": "m", "data.json": "{}", "a.md": "a"})
    assert paths(ws) == ["CLAUDE.md", "Makefile", "data.json", "a.md"]
    assert skipped(ws) == {"r.mdc": "import-not-followed", "p.mdx": "import-not-followed"}
    messages = [f.message for f in found(ws, "import-not-followed")]
    assert len(messages) == 2 and all("cogitator loads it" in m for m in messages)
    alone = make({"CLAUDE.md": "@r.mdc", "r.mdc": "r"}, profiles=("claude-code",))
    (finding,) = found(alone, "import-not-followed")
    assert "cogitator" not in finding.message


def test_imports_resolve_from_the_real_path():
    ws = make({"shared/CLAUDE.md": "@style.md", "shared/style.md": "s", "pkg/style.md": "p"},
              {"pkg/CLAUDE.md": "../shared/CLAUDE.md"})
    assert rows(ws, "pkg/x.ts") == [("pkg/CLAUDE.md", "nested", None, 0),
                                    ("shared/style.md", "import", "pkg/CLAUDE.md", 1)]
    # where only the lexical neighbour exists, Claude Code drops the import: reported
    ws = make({"shared/CLAUDE.md": "@style.md", "pkg/style.md": "p"},
              {"pkg/CLAUDE.md": "../shared/CLAUDE.md"})
    assert paths(ws, "pkg/x.ts") == ["pkg/CLAUDE.md"]
    (finding,) = found(ws, "broken-import")
    assert finding.path == "pkg/CLAUDE.md" and "it is a symlink" in finding.message


def test_fragment_cut_to_a_missing_file_is_reported():
    ws = make({"CLAUDE.md": "@notes#1.md", "notes#1.md": "n"})
    assert paths(ws) == ["CLAUDE.md"]
    (finding,) = found(ws, "broken-import")
    assert "`#1.md`" in finding.message and "cogitator loads it" in finding.message
    kept = make({"CLAUDE.md": "@guide.md#setup", "guide.md": "g"})
    assert paths(kept) == ["CLAUDE.md", "guide.md"]
    assert found(kept, "broken-import") == []  # the generic suspicious-import covers cogitator


def test_indented_import_reported_only_where_cogitator_loads_it():
    files = {"CLAUDE.md": "x\n\n    @a.md\n", "a.md": "a"}
    (finding,) = found(make(files), "import-not-followed")
    assert finding.span.start.line == 2 and finding.span.start.col == 4
    assert found(make(files, profiles=("claude-code",)), "import-not-followed") == []


def test_imports_outside_the_launch_directory_need_approval():
    files = {"CLAUDE.md": "@docs/a.md", "docs/a.md": "a", "pkg/CLAUDE.md": "@../docs/b.md @in.md",
             "docs/b.md": "b", "pkg/in.md": "i"}
    ws = make(files, cwd="pkg")
    assert paths(ws, cwd="pkg") == ["CLAUDE.md", "pkg/CLAUDE.md", "pkg/in.md"]
    assert skipped(ws, cwd="pkg") == {"docs/a.md": "import-outside-workspace",
                                      "docs/b.md": "import-outside-workspace"}
    outside = sorted((f.path, f.span.start.col) for f in found(ws, "import-outside-workspace"))
    assert outside == [("CLAUDE.md", 0), ("pkg/CLAUDE.md", 0)]
    approved = make(files, cwd="pkg", approveExternalImports=True)
    assert paths(approved, cwd="pkg") == ["CLAUDE.md", "docs/a.md", "pkg/CLAUDE.md",
                                          "docs/b.md", "pkg/in.md"]
    assert found(approved, "import-outside-workspace") == []
    # launched at the root, everything in the workspace is inside the launch directory
    assert found(make(files), "import-outside-workspace") == []


# ----- rules ---------------------------------------------------------------------------------


def rule_ws(paths_value: str, **options: Any) -> Workspace:
    return make({"CLAUDE.md": "c", ".claude/rules/r.md": f"---\npaths: {paths_value}\n---\nr"},
                **options)


@pytest.mark.parametrize(
    ("value", "target", "loads"),
    [
        ("['src/**/*.ts']", "src/a/b.ts", True),
        ("['src/**/*.ts']", "lib/src/b.ts", False),
        ("'src/*.ts, docs/**'", "docs/x/y.md", True),  # a string, comma-separated
        ("['src/*.{ts,tsx}']", "src/a.tsx", True),  # brace expansion
        ("['*.py']", "tools/deep/run.py", True),  # slash-less: any depth
        ("['docs/**']", "pkg/docs/a.md", True),  # `/**` stripped: `docs` at any depth
        ("['SRC/**/*.TS']", "src/a.ts", True),  # case-insensitive by default
        ("['src/**/*.ts']", "SRC/A.TS", True),
    ],
)
def test_rule_globs(value: str, target: str, loads: bool):
    ws = rule_ws(value)
    assert paths(ws) == ["CLAUDE.md"]  # a rule with `paths` is not loaded at start-up
    assert (".claude/rules/r.md" in paths(ws, target)) is loads


def test_case_sensitive_option():
    ws = rule_ws("['SRC/**/*.TS']", caseSensitiveGlobs=True)
    assert paths(ws, "src/a.ts") == ["CLAUDE.md"]
    assert paths(ws, "SRC/a.TS") == ["CLAUDE.md", ".claude/rules/r.md"]


@pytest.mark.parametrize("value", ["['**']", "[]", "''", "null"])
def test_unconditional_globs(value: str):
    assert rows(rule_ws(value))[-1] == (".claude/rules/r.md", "rule", None, 0)


def test_scoped_rule_note_and_owner():
    ws = make({"pkg/CLAUDE.md": "p", "pkg/.claude/rules/lib.md": "---\npaths: lib/*.ts\n---\nl"})
    files = PROFILE.explain(ws, "pkg/lib/a.ts", "pkg").files
    assert [(f.path, f.reason, f.note) for f in files] == [
        ("pkg/CLAUDE.md", "project", None),
        ("pkg/.claude/rules/lib.md", "scoped", "paths: lib/*.ts"),
    ]


def test_claude_md_excludes():
    ws = make({"CLAUDE.md": "r", "vendor/CLAUDE.md": "v", "vendor/lib/CLAUDE.md": "l"},
              claudeMdExcludes=["**/vendor/CLAUDE.md"])
    assert paths(ws, "vendor/lib/x.js") == ["CLAUDE.md", "vendor/lib/CLAUDE.md"]
    assert skipped(ws, "vendor/lib/x.js") == {"vendor/CLAUDE.md": "instructions-shadowed"}
    assert not PROFILE.reads(ws, "vendor/CLAUDE.md")
    absolute = make({"CLAUDE.md": "r", "CLAUDE.local.md": "l"}, claudeMdExcludes=["/w/*.local.md"])
    assert paths(absolute) == ["CLAUDE.md"]


# ----- size ----------------------------------------------------------------------------------


def test_no_budget_and_the_size_warning_from_40000_characters():
    ws = make({"CLAUDE.md": "a" * 50_000 + "\n", "CLAUDE.local.md": "l",
               "pkg/CLAUDE.md": "b" * 40_000})
    explanation = PROFILE.explain(ws, None, ".")
    assert [(f.path, f.chars, f.cut) for f in explanation.files] == [
        ("CLAUDE.md", 50_001, False), ("CLAUDE.local.md", 1, False)]
    assert explanation.budget.to_json() == {"kind": "none", "unit": "chars", "limit": 0}
    (finding,) = found(ws, "file-too-large")
    assert finding.path == "CLAUDE.md" and "50,001 characters" in finding.message


def test_unreadable_files_are_skipped():
    ws = make({"CLAUDE.md": b"\x00\x01binary", "CLAUDE.local.md": "l"})
    assert paths(ws) == ["CLAUDE.local.md"]
    assert skipped(ws) == {"CLAUDE.md": "unreadable-file"}
    PROFILE.findings(ws)  # no crash


# ----- user-level files (--home) -------------------------------------------------------------


def test_user_files_through_the_home_reader(tmp_path: Path):
    (tmp_path / ".claude/rules").mkdir(parents=True)
    (tmp_path / ".claude/CLAUDE.md").write_text("mine @~/extra.md\n")
    (tmp_path / "extra.md").write_text("extra\n")
    (tmp_path / ".claude/rules/always.md").write_text("always\n")
    (tmp_path / ".claude/rules/ts.md").write_text("---\npaths: ['**/*.ts']\n---\nts\n")
    home = LocalReader(str(tmp_path))
    root = home.root
    ws = make({"CLAUDE.md": "project @~/extra.md", "pkg/CLAUDE.md": "p"}, cwd="pkg", home=home)
    assert rows(ws, "pkg/a.ts", "pkg") == [
        (f"{root}/.claude/CLAUDE.md", "user", None, 0),
        (f"{root}/extra.md", "import", f"{root}/.claude/CLAUDE.md", 1),
        (f"{root}/.claude/rules/always.md", "user", None, 0),
        ("CLAUDE.md", "project", None, 0),
        ("pkg/CLAUDE.md", "project", None, 0),
        (f"{root}/.claude/rules/ts.md", "scoped", None, 0),
    ]
    # the project file's `@~/extra.md` is the same file, already loaded; without the user file
    # it would need approval (it is outside the launch directory)
    (tmp_path / ".claude/CLAUDE.md").write_text("mine\n")
    fresh = make({"CLAUDE.md": "project @~/extra.md"}, home=LocalReader(str(tmp_path)))
    assert skipped(fresh) == {f"{root}/extra.md": "import-outside-workspace"}
    assert not any(f.path.startswith("/") for f in PROFILE.findings(fresh))


def test_user_files_from_a_memory_home():
    home = MemoryReader("/home/u", {".claude/CLAUDE.md": "mine"})
    ws = make({"CLAUDE.md": "project"}, home=home)
    assert paths(ws) == ["/home/u/.claude/CLAUDE.md", "CLAUDE.md"]
    assert not any("--home" in n for n in PROFILE.explain(ws, None, ".").notes)
    assert any("--home" in n for n in PROFILE.explain(make({"CLAUDE.md": "p"}), None, ".").notes)


# ----- caching -------------------------------------------------------------------------------


def test_explanations_follow_edits():
    ws = make({"CLAUDE.md": "@a.md", "a.md": "a", "b.md": "b"})
    assert paths(ws) == ["CLAUDE.md", "a.md"]
    ws.reader.files["/w/CLAUDE.md"] = b"@b.md"
    ws.update(changed=["CLAUDE.md"])
    assert paths(ws) == ["CLAUDE.md", "b.md"]
    ws.reader.files["/w/b.md"] = b"x" * 40_001
    ws.update(changed=["b.md"])
    assert [f.path for f in found(ws, "file-too-large")] == ["b.md"]


def test_random_edits_match_a_fresh_workspace():
    """Cached loads and findings, after any sequence of edits, equal a fresh workspace's."""
    import random

    rng = random.Random(11)
    names = ["CLAUDE.md", "AGENTS.md", "pkg/CLAUDE.md", "pkg/AGENTS.md", "pkg/sub/CLAUDE.local.md",
             "docs/a.md", "docs/b.mdc", ".claude/rules/r.md", "pkg/.claude/CLAUDE.md"]
    bodies = ["@docs/a.md", "@AGENTS.md", "@../AGENTS.md", "    @docs/a.md", "@docs/b.mdc",
              "---\npaths: ['pkg/**']\n---\nr", "plain", "", "@pkg/CLAUDE.md @gone.md"]

    def snapshot(ws: Workspace) -> tuple[object, ...]:
        found = sorted((f.path, f.code, f.span, f.message) for f in PROFILE.findings(ws))
        loads = [PROFILE.explain(ws, t, c).to_json()
                 for t in (None, "pkg/sub/x.ts", "pkg/a.ts") for c in (".", "pkg")]
        return found, loads

    files = {name: rng.choice(bodies) for name in names}
    ws = make(files, cwd="pkg")
    snapshot(ws)
    for _ in range(40):
        name = rng.choice(names)
        path = "/w/" + name
        if path in ws.reader.files and rng.random() < 0.2:
            del ws.reader.files[path]
            ws.update(deleted=[name])
        elif path not in ws.reader.files:
            ws.reader.files[path] = rng.choice(bodies).encode()
            ws.update(created=[name])
        else:
            ws.reader.files[path] = rng.choice(bodies).encode()
            ws.update(changed=[name])
        fresh = make({k[3:]: v for k, v in ws.reader.files.items()}, cwd="pkg")
        assert snapshot(ws) == snapshot(fresh)


_DIRS = ["", "a", "a/b", "a/b/c", "src", "src/api"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(places=st.lists(st.tuples(st.sampled_from(_DIRS), st.sampled_from(
    ["CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", "CLAUDE.local.md"])), min_size=1,
    max_size=6), imports=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(
        ["docs/x.md", "docs/y.md", "a/b/z.md", "nothing.md"])), max_size=8),
    scoped=st.booleans(), cwd=st.sampled_from(["", "a", "src"]))
def test_what_a_load_brings_through_an_import_is_what_its_explanation_says(
        places: list[tuple[str, str]], imports: list[tuple[int, str]], scoped: bool,
        cwd: str) -> None:
    """`brought_through` reads the load's links; the default reads `explain`: the same."""
    from rulemap.profiles.base import Profile
    from rulemap.readers import MemoryReader

    files: dict[str, str] = {"docs/x.md": "x @docs/y.md\n", "docs/y.md": "y\n",
                             "a/b/z.md": "z @../../docs/x.md\n", "src/api/f.ts": "",
                             "a/b/c/g.py": ""}
    importers = []
    for directory, name in places:
        path = f"{directory}/{name}" if directory else name
        files[path] = "# memory\n"
        importers.append(path)
    for n, target in imports:
        path = importers[n % len(importers)]
        files[path] += f"@{'../' * path.count('/')}{target}\n"  # from its folder
    if scoped:
        files[".claude/rules/api.md"] = '---\npaths: ["src/**"]\n---\nSee @docs/x.md\n'
        importers.append(".claude/rules/api.md")
    ws = new_workspace(MemoryReader("/w", files))
    profile = get_profile("claude-code")
    for importer in importers:
        assert profile.brought_through(ws, importer, cwd) == Profile.brought_through(
            profile, ws, importer, cwd), importer


def test_what_a_nested_memory_file_brings_through_its_imports() -> None:
    from rulemap.readers import MemoryReader

    ws = new_workspace(MemoryReader("/w", {
        "CLAUDE.md": "@docs/x.md\n", "a/CLAUDE.md": "@../docs/y.md\n@z.md\n", "a/z.md": "z\n",
        "docs/x.md": "x\n", "docs/y.md": "y @x.md\n", "a/f.ts": ""}))
    profile = get_profile("claude-code")
    assert profile.brought_through(ws, "CLAUDE.md", "") == {"docs/x.md"}
    # docs/x.md is loaded already (by the root's import): y and z are what a/CLAUDE.md brings
    assert profile.brought_through(ws, "a/CLAUDE.md", "") == {"docs/y.md", "a/z.md"}


def test_probes_with_a_segment_named_as_every_path_test_names_it() -> None:
    """`_Probes.with_segment` rules a name out on the joined probes before testing each: the
    same probes either way (a name inside a longer one, at the end, in a directory)."""
    from rulemap.profiles.claude_code.rules import _Probes

    slashed = ["/a/legacy/x.ts", "/b/legacy", "/c/legacy-v1/y.ts", "/d/x.ts/z", "/e/xlegacy"]
    probes = _Probes(slashed, {p: [p[1:]] for p in slashed}, {})
    for name in ("legacy", "x.ts", "legacy-v1", "y.ts", "leg", "acy", "z", "d", "a/legacy"):
        assert probes.with_segment(name) == [
            p for p in slashed if f"/{name}/" in p or p.endswith(f"/{name}")], name
    assert probes.with_segment("legacy") == ["/a/legacy/x.ts", "/b/legacy"]
    assert probes.with_segment("leg") == []
