"""The copilot profile, from the reference (agent-semantics.md section 6): always
`.github/copilot-instructions.md`; `.github/instructions/**/*.instructions.md` by `applyTo`
(comma-separated globs relative to the workspace root); `excludeAgent`; the nearest AGENTS.md;
no imports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile, validate_options
from rulemap.profiles.copilot_globs import glob_regex
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

COPILOT = get_profile("copilot")


def make(files: Mapping[str, str | bytes], **options: Any) -> Workspace:
    return new_workspace(MemoryReader("/w", files),
                     profile_options=validate_options({"copilot": options}, "test"))


def rows(ws: Workspace, target: str | None = None, cwd: str = ".") -> list[tuple[object, ...]]:
    return [(f.path, f.reason, f.note) for f in COPILOT.explain(ws, target, cwd).files]


def skipped(ws: Workspace, target: str | None = None) -> dict[str, str]:
    return {s.path: s.code for s in COPILOT.explain(ws, target, ".").skipped}


def found(ws: Workspace) -> list[tuple[str, int, int, str, str]]:
    return sorted((f.path, f.span.start.line, f.span.start.col, f.code, f.severity)
                  for f in COPILOT.findings(ws))


BASE = {
    ".github/copilot-instructions.md": "always",
    ".github/instructions/ts.instructions.md": "---\napplyTo: 'src/**/*.ts, tests/**'\n---\nts",
    ".github/instructions/all.instructions.md": "---\napplyTo: '**'\n---\nall",
    ".github/instructions/deep/py.instructions.md": '---\napplyTo: "**/*.py"\n---\npy',
    "src/a.ts": "", "src/x/b.py": "", "tests/t.txt": "",
}


def test_order_and_reasons():
    ws = make(BASE)
    assert rows(ws, "src/a.ts") == [
        (".github/copilot-instructions.md", "project", None),
        (".github/instructions/all.instructions.md", "scoped", "applyTo: **"),
        (".github/instructions/ts.instructions.md", "scoped", "applyTo: src/**/*.ts, tests/**"),
    ]
    assert [r[0] for r in rows(ws, "src/x/b.py")] == [
        ".github/copilot-instructions.md",
        ".github/instructions/all.instructions.md",
        ".github/instructions/deep/py.instructions.md",  # instructions/ is read recursively
    ]


def test_everything_globs_apply_without_a_target():
    ws = make(BASE)
    assert [r[0] for r in rows(ws)] == [
        ".github/copilot-instructions.md", ".github/instructions/all.instructions.md"]


def test_frontmatter_is_not_part_of_the_text():
    ws = make(BASE)
    e = COPILOT.explain(ws, "src/a.ts", ".")
    assert [f.chars for f in e.files] == [6, 3, 2]


def test_exclude_agent():
    files = {".github/instructions/a.instructions.md":
             "---\napplyTo: '**'\nexcludeAgent: coding-agent\n---\na"}
    assert rows(make(files)) == []
    assert skipped(make(files)) == {".github/instructions/a.instructions.md": "unreachable-rule"}
    assert [r[0] for r in rows(make(files, agent="code-review"))] == [
        ".github/instructions/a.instructions.md"]


def test_nearest_agents_md():
    files = {"AGENTS.md": "root", "pkg/AGENTS.md": "pkg", "pkg/api/x.ts": ""}
    ws = make(files)
    assert rows(ws, "pkg/api/x.ts") == [("pkg/AGENTS.md", "nested", None)]
    assert skipped(ws, "pkg/api/x.ts") == {"AGENTS.md": "instructions-shadowed"}
    assert rows(ws) == [("AGENTS.md", "project", None)]
    assert rows(ws, "pkg/api/x.ts", cwd="pkg") == [("pkg/AGENTS.md", "project", None)]
    assert rows(make(files, nestedAgentsMd=False), "pkg/api/x.ts") == [
        ("AGENTS.md", "project", None)]
    assert rows(make(files, useAgentsMd=False), "pkg/api/x.ts") == []


def test_slashless_glob_is_anchored_at_the_root_by_default():
    files = {".github/instructions/r.instructions.md": "---\napplyTo: '*.ts'\n---\nr",
             "top.ts": "", "src/deep.ts": ""}
    assert rows(make(files), "src/deep.ts") == []
    assert len(rows(make(files), "top.ts")) == 1
    assert len(rows(make(files, slashlessMatchesAnyDepth=True), "src/deep.ts")) == 1


def test_vscode_globs_prepend_globstar_and_ignore_case():
    files = {".github/instructions/r.instructions.md": "---\napplyTo: 'src/**/*.ts'\n---\nr",
             "packages/a/SRC/x.TS": ""}
    assert rows(make(files), "packages/a/SRC/x.TS") == []
    assert len(rows(make(files, vscodeGlobs=True), "packages/a/SRC/x.TS")) == 1
    # and the glob matches a file then, so it is not reported
    assert found(make(files, vscodeGlobs=True)) == []
    assert [c for *_, c, _ in found(make(files))] == ["unmatched-glob"]


def test_glob_dialect():
    assert glob_regex("src/**/*.ts").fullmatch("src/a.ts")
    assert glob_regex("src/**/*.ts").fullmatch("src/a/b/c.ts")
    assert not glob_regex("src/*.ts").fullmatch("src/a/b.ts")
    assert glob_regex("src/**").fullmatch("src/a/b")
    assert not glob_regex("*.ts").fullmatch("a/b.ts")
    assert glob_regex("**/x.md").fullmatch("x.md")
    assert glob_regex("a/[!b]c.md").fullmatch("a/xc.md") and not glob_regex(
        "a/[!b]c.md").fullmatch("a/bc.md")
    assert not glob_regex("src/**").fullmatch("SRC/a")  # case-sensitive by default


def test_brace_expansion_and_case_sensitivity():
    files = {".github/instructions/r.instructions.md": "---\napplyTo: 'src/*.{ts,tsx}'\n---\nr",
             "src/a.tsx": "", "src/B.TS": ""}
    assert len(rows(make(files), "src/a.tsx")) == 1
    assert rows(make(files), "src/B.TS") == []


def test_unmatched_glob_span_inside_the_value():
    files = {".github/instructions/r.instructions.md":
             "---\napplyTo: 'src/**/*.ts, docs/**/*.rst'\n---\nr", "src/a.ts": ""}
    assert found(make(files)) == [
        (".github/instructions/r.instructions.md", 1, 23, "unmatched-glob", "information")]
    files[".github/instructions/r.instructions.md"] = "---\napplyTo: docs/**\n---\nr"
    assert found(make(files)) == [
        (".github/instructions/r.instructions.md", 1, 9, "unmatched-glob", "warning")]


def test_unquoted_globstar_header_is_read_like_vs_code():
    # `**/*.ts` unquoted is an alias to YAML; VS Code's header parser reads it as a string
    files = {".github/instructions/r.instructions.md": "---\napplyTo: **/*.ts\n---\nr",
             "src/a.ts": ""}
    ws = make(files)
    assert len(rows(ws, "src/a.ts")) == 1
    assert found(ws) == []


def test_invalid_frontmatter():
    files = {".github/instructions/r.instructions.md": "---\napplyTo: [a\n  b: c\n---\nr",
             ".github/instructions/t.instructions.md": "---\napplyTo: 3\n---\nt"}
    ws = make(files)
    codes = [(p, c) for p, _, _, c, _ in found(ws)]
    assert codes == [(".github/instructions/r.instructions.md", "invalid-frontmatter"),
                     (".github/instructions/t.instructions.md", "invalid-frontmatter")]
    assert skipped(ws) == {".github/instructions/r.instructions.md": "invalid-frontmatter",
                           ".github/instructions/t.instructions.md": "invalid-frontmatter"}


def test_no_apply_to_and_misnamed_files():
    files = {".github/instructions/a.instructions.md": "no header",
             ".github/instructions/style.md": "never read", ".github/instructions/README.md": "x"}
    assert [(p, c, s) for p, _, _, c, s in found(make(files))] == [
        (".github/instructions/a.instructions.md", "unreachable-rule", "information"),
        (".github/instructions/style.md", "unreachable-rule", "warning"),
    ]


def test_empty_files():
    files = {".github/copilot-instructions.md": "", "AGENTS.md": "",
             ".github/instructions/a.instructions.md": "---\napplyTo: '**'\n---\n"}
    ws = make(files)
    assert rows(ws) == []
    assert skipped(ws) == {".github/copilot-instructions.md": "empty-instructions",
                           ".github/instructions/a.instructions.md": "empty-instructions",
                           "AGENTS.md": "empty-instructions"}
    # AGENTS.md's emptiness is the default model's finding, not repeated
    assert [(p, c) for p, _, _, c, _ in found(ws)] == [
        (".github/copilot-instructions.md", "empty-instructions"),
        (".github/instructions/a.instructions.md", "empty-instructions")]


def test_no_imports():
    ws = make({".github/copilot-instructions.md": "@docs/a.md", "docs/a.md": "a"})
    assert [r[0] for r in rows(ws)] == [".github/copilot-instructions.md"]


def test_detect_and_reads():
    assert COPILOT.detect(make({".github/copilot-instructions.md": "x"}))
    assert COPILOT.detect(make({".github/instructions/a.instructions.md": "x"}))
    assert not COPILOT.detect(make({"AGENTS.md": "x", ".github/workflows/ci.yml": ""}))
    ws = make({})
    assert COPILOT.reads(ws, ".github/instructions/x/a.instructions.md")
    assert COPILOT.reads(ws, "pkg/AGENTS.md")
    assert not COPILOT.reads(ws, ".github/instructions/a.md")
    assert not COPILOT.reads(make({}, useAgentsMd=False), "AGENTS.md")


def _state(ws: Workspace) -> tuple[object, ...]:
    return (sorted((f.path, f.span, f.code, f.message) for f in COPILOT.findings(ws)),
            rows(ws, "src/a.ts"), rows(ws))


def test_edits_give_what_a_fresh_workspace_gives():
    files = dict(BASE)
    ws = make(files)
    _state(ws)
    edits = [
        (".github/instructions/ts.instructions.md", "---\napplyTo: 'nothing/**'\n---\nts"),
        (".github/instructions/all.instructions.md", "---\napplyTo: [oops\n  x: 1\n---\nall"),
        (".github/copilot-instructions.md", ""),
        (".github/instructions/ts.instructions.md", "---\napplyTo: 'src/*.ts'\n---\nts again"),
    ]
    for key, text in edits:
        files[key] = text
        ws.reader.files["/w/" + key] = text.encode()
        ws.update(changed={key})
        assert _state(ws) == _state(make(files)), key
