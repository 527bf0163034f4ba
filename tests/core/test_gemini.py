"""The gemini profile (docs/profiles/gemini.md; the release facts: test_gemini_release.py):
GEMINI.md global, then upward from the cwd to the git root, then just in time (or, with
`jitContext = false`, a bounded downward scan);
`@path` imports after whitespace, starting with `.`, `/` or a letter, 5 levels (the 5th
still loads), cycles tracked per import chain (a diamond appears twice), only backtick code
excluded, paths outside the project root refused."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rulemap.analysis import new_workspace
from rulemap.checks.hints import with_suggestions
from rulemap.profiles import get_profile, validate_options
from rulemap.profiles.gemini.imports import code_regions, scan_gemini
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

GEMINI = get_profile("gemini")


def make(
    files: Mapping[str, str | bytes],
    home: Mapping[str, str] | None = None,
    symlinks: Mapping[str, str] | None = None,
    **options: Any,
) -> Workspace:
    return new_workspace(
        MemoryReader("/w", files, symlinks),
        profile_options=validate_options({"gemini": options}, "test"),
        home_reader=MemoryReader("/h", home) if home is not None else None,
    )


def rows(ws: Workspace, target: str | None = None, cwd: str = ".") -> list[tuple[object, ...]]:
    e = GEMINI.explain(ws, target, cwd)
    return [(f.path, f.reason, f.imported_by, f.depth) for f in e.files]


def skipped(ws: Workspace, target: str | None = None, cwd: str = ".") -> dict[str, str]:
    return {s.path: s.code for s in GEMINI.explain(ws, target, cwd).skipped}


def found(ws: Workspace) -> list[tuple[str, int, str]]:
    return sorted((f.path, f.span.start.line, f.code) for f in GEMINI.findings(ws))


# ----- the scanner ----------------------------------------------------------------------------


def test_scanner_token_rules():
    text = "@a.md x@b.md @_c.md @1.md @~/d.md (@e.md) @./f.md\n@/g.md @h.md,"
    kinds = [(t.path, t.kind) for t in scan_gemini(text)]
    assert kinds == [
        ("a.md", "import"),
        ("_c.md", "refused"),
        ("1.md", "refused"),
        ("~/d.md", "refused"),
        ("./f.md", "import"),
        ("/g.md", "import"),
        ("h.md,", "import"),  # runs to the next whitespace: the comma is part of the path
    ]


def test_scanner_escape_is_not_special():
    tokens = scan_gemini("see @my\\ file.md")
    assert [t.path for t in tokens] == ["my\\"]


def test_only_backtick_code_is_excluded():
    text = (
        "```\n@./fenced.md\n```\n"
        "~~~\n@./tilde.md\n~~~\n"
        "    @./indented.md\n"
        "<!-- @./comment.md -->\n"
        "` @./span.md ` and @./prose.md `@./glued.md`\n"
    )
    kinds = {t.path: t.kind for t in scan_gemini(text)}
    assert kinds == {
        "./fenced.md": "code",
        "./tilde.md": "import",
        "./indented.md": "import",
        "./comment.md": "import",
        "./span.md": "code",
        "./prose.md": "import",
    }  # `@` right after a backtick is no token at all: it must follow whitespace


def test_backtick_code_spans_lines_and_paragraphs():
    # Gemini's regex pairs backtick runs anywhere: an unclosed one pairs with a later one
    text = "a ` b\n\n@./x.md\n\nc ` d @./y.md"
    kinds = {t.path: t.kind for t in scan_gemini(text)}
    assert kinds == {"./x.md": "code", "./y.md": "import"}
    # two backticks close on the first two of the three that follow
    assert code_regions("``a```") == [(0, 5)]


# ----- what loads, in what order --------------------------------------------------------------


def test_order_global_then_git_root_down_to_cwd_then_below_eager():
    ws = make(
        {
            "GEMINI.md": "root",
            "pkg/GEMINI.md": "pkg",
            "pkg/api/GEMINI.md": "api",
            "pkg/api/z/GEMINI.md": "z",
            "pkg/api/b/GEMINI.md": "b",
            "other/GEMINI.md": "sibling",
        },
        home={".gemini/GEMINI.md": "global"},
        jitContext=False,
    )
    assert rows(ws, cwd="pkg/api") == [
        ("/h/.gemini/GEMINI.md", "user", None, 0),
        ("GEMINI.md", "project", None, 0),
        ("pkg/GEMINI.md", "project", None, 0),
        ("pkg/api/GEMINI.md", "project", None, 0),
        ("pkg/api/b/GEMINI.md", "nested", None, 0),
        ("pkg/api/z/GEMINI.md", "nested", None, 0),
    ]


def test_no_home_no_global_file():
    ws = make({"GEMINI.md": "root"})
    assert rows(ws) == [("GEMINI.md", "project", None, 0)]


def test_upward_walk_stops_at_a_nested_git_root():
    for marker in ("sub/.git/HEAD", "sub/.git"):  # a `.git` directory or a `.git` file
        ws = make({"GEMINI.md": "root", "sub/GEMINI.md": "sub", "sub/x/GEMINI.md": "x",
                   marker: "gitdir"})
        assert rows(ws, cwd="sub/x") == [
            ("sub/GEMINI.md", "project", None, 0),
            ("sub/x/GEMINI.md", "project", None, 0),
        ], marker


def test_file_names_option_per_directory_in_order():
    ws = make({"AGENTS.md": "a", "GEMINI.md": "g", "pkg/GEMINI.md": "pg", "pkg/AGENTS.md": "pa"},
              fileNames=["GEMINI.md", "AGENTS.md"])
    assert rows(ws, cwd="pkg") == [
        ("GEMINI.md", "project", None, 0),
        ("AGENTS.md", "project", None, 0),
        ("pkg/GEMINI.md", "project", None, 0),
        ("pkg/AGENTS.md", "project", None, 0),
    ]


def test_downward_scan_is_bounded():
    files = {"GEMINI.md": "root", "a/GEMINI.md": "a", "a/b/c/GEMINI.md": "deep"}
    # the root, a, a/b: a/b/c is the fourth directory
    ws = make(files, maxScanDirs=3, jitContext=False)
    assert rows(ws) == [("GEMINI.md", "project", None, 0), ("a/GEMINI.md", "nested", None, 0)]
    assert skipped(ws) == {"a/b/c/GEMINI.md": "unreachable-rule"}
    assert any("3 directories" in n for n in GEMINI.explain(ws, None, ".").notes)
    ws = make(files, jitContext=False)
    assert [r[0] for r in rows(ws)] == ["GEMINI.md", "a/GEMINI.md", "a/b/c/GEMINI.md"]


def test_downward_scan_respects_geminiignore():
    ws = make({"GEMINI.md": "root", ".geminiignore": "# comment\nvendor/\n",
               "vendor/GEMINI.md": "v", "src/GEMINI.md": "s"}, jitContext=False)
    assert [r[0] for r in rows(ws)] == ["GEMINI.md", "src/GEMINI.md"]


def test_eager_load_without_the_downward_scan():
    files = {"GEMINI.md": "root", "pkg/GEMINI.md": "pkg", "pkg/api/GEMINI.md": "api"}
    ws = make(files, jitContext=False, downwardScan=False)
    assert [r[0] for r in rows(ws, "pkg/api/x.ts")] == ["GEMINI.md"]


def test_empty_file_left_out_and_reported():
    ws = make({"GEMINI.md": "  \n", "pkg/GEMINI.md": "pkg"}, jitContext=False)
    assert [r[0] for r in rows(ws)] == ["pkg/GEMINI.md"]
    assert skipped(ws) == {"GEMINI.md": "empty-instructions"}
    assert found(ws) == [("GEMINI.md", 0, "empty-instructions")]


def test_unreadable_file_skipped_and_reported():
    ws = make({"GEMINI.md": b"\xff\xfe bad"})
    assert rows(ws) == []
    assert skipped(ws) == {"GEMINI.md": "unreadable-file"}
    assert found(ws) == [("GEMINI.md", 0, "unreadable-file")]


def test_symlinked_alias_read_once():
    ws = make({"GEMINI.md": "root", "docs/real.md": "r"},
              symlinks={"pkg/GEMINI.md": "../GEMINI.md"}, jitContext=False)
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]
    assert skipped(ws) == {"pkg/GEMINI.md": "duplicate-load"}


# ----- imports --------------------------------------------------------------------------------


def _chain(n: int) -> dict[str, str]:
    files = {"GEMINI.md": "@./h1.md"}
    for i in range(1, n + 1):
        files[f"h{i}.md"] = f"hop {i} @./h{i + 1}.md" if i < n else f"hop {i}"
    return files


def test_depth_five_inclusive():
    ws = make(_chain(6))
    assert [(r[0], r[3]) for r in rows(ws)] == [
        ("GEMINI.md", 0), ("h1.md", 1), ("h2.md", 2), ("h3.md", 3), ("h4.md", 4), ("h5.md", 5),
    ]
    assert skipped(ws) == {"h6.md": "import-too-deep"}
    assert found(ws) == [("h5.md", 0, "import-too-deep")]


def test_diamond_appears_twice():
    ws = make({"GEMINI.md": "@./a.md @./b.md", "a.md": "@./d.md", "b.md": "@./d.md", "d.md": "d"})
    assert rows(ws) == [
        ("GEMINI.md", "project", None, 0),
        ("a.md", "import", "GEMINI.md", 1),
        ("d.md", "import", "a.md", 2),
        ("b.md", "import", "GEMINI.md", 1),
        ("d.md", "import", "b.md", 2),
    ]
    assert found(ws) == []


def test_cycle_stops_on_the_chain():
    ws = make({"GEMINI.md": "@./a.md", "a.md": "@./b.md", "b.md": "@./a.md"})
    assert [(r[0], r[3]) for r in rows(ws)] == [("GEMINI.md", 0), ("a.md", 1), ("b.md", 2)]
    assert skipped(ws) == {"a.md": "import-cycle"}
    assert found(ws) == [("b.md", 0, "import-cycle")]


def test_cycle_back_to_the_context_file_reads_it_once_more():
    # the file a chain starts from is not on it (Gemini's processedFiles starts empty)
    ws = make({"GEMINI.md": "top @./a.md", "a.md": "@./GEMINI.md"})
    assert [(r[0], r[3]) for r in rows(ws)] == [("GEMINI.md", 0), ("a.md", 1), ("GEMINI.md", 2)]
    assert skipped(ws) == {"a.md": "import-cycle"}
    assert [c for _, _, c in found(ws)] == ["import-cycle"]


def test_code_and_prose_imports():
    ws = make({
        "GEMINI.md": "```\n@./fenced.md\n```\n~~~\n@./tilde.md\n~~~\n    @./indented.md\n"
                     "<!-- @./comment.md -->\n` @./span.md `\n",
        "fenced.md": "f", "tilde.md": "t", "indented.md": "i", "comment.md": "c", "span.md": "s",
    })
    assert [r[0] for r in rows(ws)] == ["GEMINI.md", "tilde.md", "indented.md", "comment.md"]


def test_leading_underscore_or_digit_is_not_an_import():
    ws = make({"GEMINI.md": "see @_notes.md and @1.md\n", "_notes.md": "n", "1.md": "one"})
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]
    findings = GEMINI.findings(ws)
    assert sorted((f.code, f.span.start.col) for f in findings) == [
        ("suspicious-import", 4), ("suspicious-import", 19)]
    fixes = {f.fixes[0].new_text for f in findings}
    assert fixes == {"@./_notes.md", "@./1.md"}


def test_home_path_is_not_an_import():
    ws = make({"GEMINI.md": "@~/notes.md"})
    assert [c for _, _, c in found(ws)] == ["suspicious-import"]
    assert "home" in GEMINI.findings(ws)[0].message


def test_escaped_space_is_not_an_escape():
    ws = make({"GEMINI.md": "@my\\ file.md\n", "my file.md": "x"})
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]
    [finding] = GEMINI.findings(ws)
    assert finding.code == "suspicious-import" and "escape" in finding.message


def test_emails_and_package_names():
    ws = make({"GEMINI.md": "mail user@example.com, use @scope/pkg and @alice\n"})
    findings = GEMINI.findings(ws)
    assert [(f.code, f.severity, f.span.start.col) for f in findings] == [
        ("broken-import", "information", 27), ("broken-import", "information", 42)]


def test_missing_file_like_import_is_an_error_with_a_suggestion():
    ws = make({"GEMINI.md": "@./docs/styel.md", "docs/style.md": "s"})
    [finding] = GEMINI.findings(ws)
    assert (finding.code, finding.severity) == ("broken-import", "error")
    # worked out where the finding is shown (the default agent's findings name no agent)
    assert "did you mean" not in finding.message and finding.hint is not None
    for named in (finding, dataclasses.replace(finding, profile="gemini")):
        [shown] = with_suggestions(ws, [named])
        assert "did you mean `@./docs/style.md`?" in shown.message and shown.hint is None
        assert [f.new_text for f in shown.fixes] == ["@./docs/style.md"]


def test_trailing_punctuation_is_part_of_the_path():
    ws = make({"GEMINI.md": "read @./a.md, then go", "a.md": "a"})
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]
    [finding] = GEMINI.findings(ws)
    assert finding.code == "suspicious-import"
    assert finding.fixes[0].new_text == "@./a.md"


def test_outside_the_project_root_refused():
    ws = make({"GEMINI.md": "@../up.md @/etc/passwd", "sub/.git": "gitdir: x",
               "sub/GEMINI.md": "@../docs/a.md", "docs/a.md": "a"}, jitContext=False)
    # sub/GEMINI.md (found by the scan below the root) is in a nested repository: its
    # imports must stay inside that repository
    assert skipped(ws) == {"/up.md": "import-outside-workspace",
                           "/etc/passwd": "import-outside-workspace",
                           "docs/a.md": "import-outside-workspace"}
    assert skipped(ws, cwd="sub") == {"docs/a.md": "import-outside-workspace"}
    assert sorted(f.code for f in GEMINI.findings(ws)) == ["import-outside-workspace"] * 3


def test_url_refused():
    ws = make({"GEMINI.md": "@https://example.com/x.md"})
    assert skipped(ws) == {"https://example.com/x.md": "suspicious-import"}
    assert [c for _, _, c in found(ws)] == ["suspicious-import"]


def test_global_file_imports_stay_in_dot_gemini():
    ws = make({"GEMINI.md": "root"},
              home={".gemini/GEMINI.md": "@./style.md @../secret.md", ".gemini/style.md": "s",
                    "secret.md": "x"})
    assert rows(ws)[:2] == [("/h/.gemini/GEMINI.md", "user", None, 0),
                            ("/h/.gemini/style.md", "import", "/h/.gemini/GEMINI.md", 1)]
    assert skipped(ws) == {"/h/secret.md": "import-outside-workspace"}
    assert found(ws) == []  # the user's files are not the workspace's findings


def test_default_model_files_not_reported_twice():
    # AGENTS.md as a Gemini context file: its broken import is the default model's finding
    ws = make({"AGENTS.md": "@./missing.md\n```\n@./x.md\n```\n~~~\n@./tilde.md\n~~~\n"},
              fileNames=["AGENTS.md"])
    assert [(f.code, f.span.start.line) for f in GEMINI.findings(ws)] == [("broken-import", 5)]


def test_detect_and_reads():
    ws = make({"GEMINI.md": "x", "pkg/AGENTS.md": "a"})
    assert GEMINI.detect(ws)
    assert GEMINI.reads(ws, "pkg/GEMINI.md") and not GEMINI.reads(ws, "pkg/AGENTS.md")
    assert not GEMINI.detect(make({"AGENTS.md": "a"}))
    assert GEMINI.detect(make({"pkg/CONTEXT.md": "a"}, fileNames=["CONTEXT.md"]))


def test_findings_follow_edits():
    ws = make({"GEMINI.md": "@./a.md", "a.md": "@./b.md"})
    assert found(ws) == [("a.md", 0, "broken-import")]
    ws.reader.files["/w/a.md"] = b"fixed"
    ws.update(changed={"a.md"})
    assert found(ws) == []
    assert [r[0] for r in rows(ws)] == ["GEMINI.md", "a.md"]


def test_huge_diamond_lattice_is_capped():
    files = {"GEMINI.md": " ".join(f"@./l1_{j}.md" for j in range(8))}
    for level in range(1, 5):
        nxt = " ".join(f"@./l{level + 1}_{j}.md" for j in range(8))
        for j in range(8):
            files[f"l{level}_{j}.md"] = nxt
    for j in range(8):
        files[f"l5_{j}.md"] = "leaf"
    ws = make(files)
    e = GEMINI.explain(ws, None, ".")
    assert len(e.files) <= 5001
    assert any("stops listing" in n for n in e.notes)
    assert found(ws) == []


def _state(ws: Workspace) -> tuple[object, ...]:
    return (sorted((f.path, f.span, f.code, f.message) for f in GEMINI.findings(ws)),
            rows(ws), GEMINI.explain(ws, None, ".").skipped)


def test_edits_give_what_a_fresh_workspace_gives():
    files = {"GEMINI.md": "@./a.md @./b.md", "a.md": "@./c.md", "b.md": "b", "c.md": b"\xff",
             "pkg/GEMINI.md": "@../a.md"}
    ws = make(files)
    _state(ws)
    edits = [("c.md", "now readable @./a.md"), ("b.md", "@./missing.md"),
             ("GEMINI.md", ""), ("pkg/GEMINI.md", "@_x.md"), ("GEMINI.md", "@./b.md")]
    for key, text in edits:
        files[key] = text
        ws.reader.files["/w/" + key] = text.encode()
        ws.update(changed={key})
        assert _state(ws) == _state(make(files)), key


def test_hostile_text_stays_bounded():
    # a long backtick run (Gemini's regex backtracks on it), thousands of tokens, a lattice
    # whose depth-5 files import again: every answer comes, and the listing stays bounded
    files = {"GEMINI.md": "`" * 20000 + " @./a.md " + "@ " * 5000 + "@./l1_0.md\n",
             "a.md": "@./a.md " * 2000}
    for level in range(1, 6):
        nxt = " ".join(f"@./l{level + 1}_{j}.md" for j in range(8))
        for j in range(8):
            files[f"l{level}_{j}.md"] = nxt
    ws = make(files)
    e = GEMINI.explain(ws, None, ".")
    assert len(e.files) + len(e.skipped) <= 5002
    codes = {f.code for f in GEMINI.findings(ws)}
    assert codes <= {"import-cycle", "broken-import"}
