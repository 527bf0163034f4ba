"""The copilot profile (docs/profiles/copilot.md, each fact with its public source): always
`.github/copilot-instructions.md`; `.github/instructions/**/*.instructions.md` by `applyTo`
(comma-separated globs relative to the workspace root); `excludeAgent`; per agent, the nearest
AGENTS.md (coding agent), none (code review) or the root's (VS Code's chat); no imports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from rulemap.analysis import new_workspace
from rulemap.config import ConfigError
from rulemap.profiles import get_profile, validate_options
from rulemap.profiles.copilot_globs import glob_regex
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

COPILOT = get_profile("copilot")


def make(files: Mapping[str, str | bytes], symlinks: Mapping[str, str] | None = None,
         **options: Any) -> Workspace:
    return new_workspace(MemoryReader("/w", files, symlinks),
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


def test_order_and_reasons() -> None:
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


def test_everything_globs_apply_without_a_target() -> None:
    ws = make(BASE)
    assert [r[0] for r in rows(ws)] == [
        ".github/copilot-instructions.md", ".github/instructions/all.instructions.md"]


def test_star_globstar_and_globstar_star_mean_every_file() -> None:
    for glob in ("*", "**", "**/*"):
        files = {".github/instructions/r.instructions.md": f"---\napplyTo: '{glob}'\n---\nr",
                 "src/deep/a.ts": ""}
        for agent in ("coding-agent", "vscode-chat"):
            ws = make(files, agent=agent)
            assert len(rows(ws)) == 1 and len(rows(ws, "src/deep/a.ts")) == 1, (glob, agent)


def test_frontmatter_is_not_part_of_the_text() -> None:
    ws = make(BASE)
    e = COPILOT.explain(ws, "src/a.ts", ".")
    assert [f.chars for f in e.files] == [6, 3, 2]


def test_exclude_agent() -> None:
    files = {".github/instructions/a.instructions.md":
             "---\napplyTo: '**'\nexcludeAgent: coding-agent\n---\na"}
    assert rows(make(files)) == []
    assert skipped(make(files)) == {".github/instructions/a.instructions.md": "unreachable-rule"}
    assert [r[0] for r in rows(make(files, agent="code-review"))] == [
        ".github/instructions/a.instructions.md"]


def test_nearest_agents_md() -> None:
    files = {"AGENTS.md": "root", "pkg/AGENTS.md": "pkg", "pkg/api/x.ts": ""}
    ws = make(files)
    assert rows(ws, "pkg/api/x.ts") == [("pkg/AGENTS.md", "nested", None)]
    assert skipped(ws, "pkg/api/x.ts") == {"AGENTS.md": "instructions-shadowed"}
    assert rows(ws) == [("AGENTS.md", "project", None)]
    assert rows(ws, "pkg/api/x.ts", cwd="pkg") == [("pkg/AGENTS.md", "project", None)]


def test_use_agents_md_file_off_reads_no_agents_md() -> None:
    files = {"AGENTS.md": "root", "pkg/AGENTS.md": "pkg", "pkg/api/x.ts": ""}
    assert rows(make(files, useAgentsMdFile=False), "pkg/api/x.ts") == []
    assert rows(make(files, agent="vscode-chat", useAgentsMdFile=False)) == []


def test_code_review_reads_no_agents_md() -> None:
    files = {".github/copilot-instructions.md": "repo", "AGENTS.md": "root", "CLAUDE.md": "c"}
    ws = make(files, agent="code-review")
    assert [r[0] for r in rows(ws)] == [".github/copilot-instructions.md"]
    assert not COPILOT.reads(ws, "AGENTS.md")


def test_coding_agent_reads_claude_and_gemini_md_at_the_root() -> None:
    # "Alternatively, you can use a single CLAUDE.md or GEMINI.md file stored in the root":
    # read where no AGENTS.md is; beside one only with rootFilesBesideAgentsMd (unconfirmed)
    alone = make({"CLAUDE.md": "c", "GEMINI.md": "g", "pkg/CLAUDE.md": "no"})
    assert rows(alone) == [("CLAUDE.md", "project", None), ("GEMINI.md", "project", None)]
    assert COPILOT.reads(alone, "GEMINI.md") and not COPILOT.reads(alone, "pkg/CLAUDE.md")
    files = {"AGENTS.md": "a", "CLAUDE.md": "c", "GEMINI.md": "g"}
    beside = make(files)
    assert rows(beside) == [("AGENTS.md", "project", None)]
    assert any("alternative to AGENTS.md" in n for n in COPILOT.explain(beside, None, ".").notes)
    assert rows(make(files, rootFilesBesideAgentsMd=True)) == [
        ("AGENTS.md", "project", None), ("CLAUDE.md", "project", None),
        ("GEMINI.md", "project", None)]


def test_vscode_chat_reads_only_the_root_agents_md() -> None:
    files = {"AGENTS.md": "root", "pkg/AGENTS.md": "pkg", "pkg/api/x.ts": ""}
    ws = make(files, agent="vscode-chat")
    assert rows(ws, "pkg/api/x.ts") == [("AGENTS.md", "project", None)]
    assert skipped(ws, "pkg/api/x.ts") == {}
    assert not COPILOT.reads(ws, "pkg/AGENTS.md")


def test_vscode_chat_lists_nested_agents_md_by_path_when_enabled() -> None:
    files = {"AGENTS.md": "root", "pkg/AGENTS.md": "pkg", "pkg/api/x.ts": ""}
    on = COPILOT.explain(make(files, agent="vscode-chat", useNestedAgentsMdFiles=True),
                         "pkg/api/x.ts", ".")
    assert [f.path for f in on.files] == ["AGENTS.md"]  # listed, not loaded
    assert any("pkg/AGENTS.md" in n and "useNestedAgentsMdFiles" in n for n in on.notes)
    off = COPILOT.explain(make(files, agent="vscode-chat"), "pkg/api/x.ts", ".")
    assert not any("pkg/AGENTS.md" in n for n in off.notes)


def test_vscode_chat_use_instruction_files_off_skips_the_repository_file() -> None:
    files = {".github/copilot-instructions.md": "repo", "AGENTS.md": "a"}
    assert [r[0] for r in rows(make(files, agent="vscode-chat"))] == [
        ".github/copilot-instructions.md", "AGENTS.md"]
    ws = make(files, agent="vscode-chat", useInstructionFiles=False)
    assert [r[0] for r in rows(ws)] == ["AGENTS.md"]
    assert not COPILOT.reads(ws, ".github/copilot-instructions.md")
    # the coding agent has no such switch
    assert len(rows(make(files, useInstructionFiles=False))) == 2


def test_vscode_chat_reads_claude_md_files() -> None:
    files = {"CLAUDE.md": "c", "CLAUDE.local.md": "l", ".claude/CLAUDE.md": "d",
             "GEMINI.md": "g"}
    assert [r[0] for r in rows(make(files, agent="vscode-chat"))] == [
        "CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md"]
    assert rows(make(files, agent="vscode-chat", useClaudeMdFile=False)) == []


def test_vscode_chat_ignores_exclude_agent() -> None:
    files = {".github/instructions/a.instructions.md":
             "---\napplyTo: '**'\nexcludeAgent: coding-agent\n---\na",
             ".github/instructions/b.instructions.md":
             "---\napplyTo: '**'\nexcludeAgent: code-review\n---\nb"}
    assert len(rows(make(files, agent="vscode-chat"))) == 2


def test_slashless_glob_matches_top_level_files_for_the_coding_agent() -> None:
    files = {".github/instructions/r.instructions.md": "---\napplyTo: '*.ts'\n---\nr",
             "top.ts": "", "src/deep.ts": ""}
    assert rows(make(files), "src/deep.ts") == []
    assert len(rows(make(files), "top.ts")) == 1
    assert rows(make(files, agent="code-review"), "src/deep.ts") == []


def test_vscode_chat_globs_prepend_globstar_and_ignore_case() -> None:
    files = {".github/instructions/r.instructions.md": "---\napplyTo: 'src/**/*.ts'\n---\nr",
             "packages/a/SRC/x.TS": ""}
    assert rows(make(files), "packages/a/SRC/x.TS") == []
    assert len(rows(make(files, agent="vscode-chat"), "packages/a/SRC/x.TS")) == 1
    # and the glob matches a file then, so it is not reported
    assert found(make(files, agent="vscode-chat")) == []
    assert [c for *_, c, _ in found(make(files))] == ["unmatched-glob"]


def test_vscode_chat_slashless_glob_matches_at_any_depth() -> None:
    files = {".github/instructions/r.instructions.md": "---\napplyTo: '*.ts'\n---\nr",
             "src/deep.ts": ""}
    assert len(rows(make(files, agent="vscode-chat"), "src/deep.ts")) == 1


def test_vscode_chat_leading_slash_glob_matches_no_workspace_file() -> None:
    files = {".github/instructions/r.instructions.md": "---\napplyTo: '/src/*.ts'\n---\nr",
             "src/a.ts": ""}
    assert rows(make(files, agent="vscode-chat"), "src/a.ts") == []
    assert len(rows(make(files), "src/a.ts")) == 1  # root-relative for the coding agent


def test_apply_to_is_comma_separated_and_trimmed() -> None:
    files = {".github/instructions/r.instructions.md":
             '---\napplyTo: "**/*.ts ,  docs/**,src/{a,b}.md"\n---\nr',
             "x/y.ts": "", "docs/z.txt": "", "src/b.md": "", "src/c.md": ""}
    for agent in ("coding-agent", "vscode-chat"):
        ws = make(files, agent=agent)
        assert [len(rows(ws, t)) for t in ("x/y.ts", "docs/z.txt", "src/b.md", "src/c.md")] == [
            1, 1, 1, 0], agent


def test_coding_agent_lists_a_symlinked_copilot_instructions_and_agents_md_both() -> None:
    text = "Run the tests.\n"
    ws = make({"AGENTS.md": text}, symlinks={".github/copilot-instructions.md": "../AGENTS.md"})
    e = COPILOT.explain(ws, None, ".")
    assert [(f.path, f.text, f.chars) for f in e.files] == [
        (".github/copilot-instructions.md", text, len(text)), ("AGENTS.md", text, len(text))]


def test_vscode_chat_adds_a_symlink_once_by_real_path_and_a_copy_twice() -> None:
    text = "Run the tests.\n"
    link = make({"AGENTS.md": text}, symlinks={".github/copilot-instructions.md": "../AGENTS.md"},
                agent="vscode-chat")
    assert [r[0] for r in rows(link)] == ["AGENTS.md"]
    assert skipped(link) == {".github/copilot-instructions.md": "duplicate-load"}
    copy = make({"AGENTS.md": text, ".github/copilot-instructions.md": text}, agent="vscode-chat")
    assert [r[0] for r in rows(copy)] == [".github/copilot-instructions.md", "AGENTS.md"]


def test_old_option_keys_name_their_replacement() -> None:
    for old, new in (("useAgentsMd", "useAgentsMdFile"), ("vscodeGlobs", "agent"),
                     ("nestedAgentsMd", "useNestedAgentsMdFiles"),
                     ("slashlessMatchesAnyDepth", "agent")):
        with pytest.raises(ConfigError, match=f"`{old}` was replaced by `{new}`"):
            validate_options({"copilot": {old: True}}, "test")
    with pytest.raises(ConfigError, match="vscode-chat"):
        validate_options({"copilot": {"agent": "chat"}}, "test")


def test_glob_dialect() -> None:
    assert glob_regex("src/**/*.ts").fullmatch("src/a.ts")
    assert glob_regex("src/**/*.ts").fullmatch("src/a/b/c.ts")
    assert not glob_regex("src/*.ts").fullmatch("src/a/b.ts")
    assert glob_regex("src/**").fullmatch("src/a/b")
    assert not glob_regex("*.ts").fullmatch("a/b.ts")
    assert glob_regex("**/x.md").fullmatch("x.md")
    assert glob_regex("a/[!b]c.md").fullmatch("a/xc.md") and not glob_regex(
        "a/[!b]c.md").fullmatch("a/bc.md")
    assert not glob_regex("src/**").fullmatch("SRC/a")  # case-sensitive by default


def test_brace_expansion_and_case_sensitivity() -> None:
    files = {".github/instructions/r.instructions.md": "---\napplyTo: 'src/*.{ts,tsx}'\n---\nr",
             "src/a.tsx": "", "src/B.TS": ""}
    assert len(rows(make(files), "src/a.tsx")) == 1
    assert rows(make(files), "src/B.TS") == []


def test_unmatched_glob_span_inside_the_value() -> None:
    files = {".github/instructions/r.instructions.md":
             "---\napplyTo: 'src/**/*.ts, docs/**/*.rst'\n---\nr", "src/a.ts": ""}
    assert found(make(files)) == [
        (".github/instructions/r.instructions.md", 1, 23, "unmatched-glob", "information")]
    files[".github/instructions/r.instructions.md"] = "---\napplyTo: docs/**\n---\nr"
    assert found(make(files)) == [
        (".github/instructions/r.instructions.md", 1, 9, "unmatched-glob", "warning")]


def test_unquoted_globstar_header_is_read_like_vs_code() -> None:
    # `**/*.ts` unquoted is an alias to YAML; VS Code's header parser reads it as a string
    files = {".github/instructions/r.instructions.md": "---\napplyTo: **/*.ts\n---\nr",
             "src/a.ts": ""}
    ws = make(files)
    assert len(rows(ws, "src/a.ts")) == 1
    assert found(ws) == []


def test_invalid_frontmatter() -> None:
    files = {".github/instructions/r.instructions.md": "---\napplyTo: [a\n  b: c\n---\nr",
             ".github/instructions/t.instructions.md": "---\napplyTo: 3\n---\nt"}
    ws = make(files)
    codes = [(p, c) for p, _, _, c, _ in found(ws)]
    assert codes == [(".github/instructions/r.instructions.md", "invalid-frontmatter"),
                     (".github/instructions/t.instructions.md", "invalid-frontmatter")]
    assert skipped(ws) == {".github/instructions/r.instructions.md": "invalid-frontmatter",
                           ".github/instructions/t.instructions.md": "invalid-frontmatter"}


def test_no_apply_to_and_misnamed_files() -> None:
    files = {".github/instructions/a.instructions.md": "no header",
             ".github/instructions/style.md": "never read", ".github/instructions/README.md": "x"}
    assert [(p, c, s) for p, _, _, c, s in found(make(files))] == [
        (".github/instructions/a.instructions.md", "unreachable-rule", "information"),
        (".github/instructions/style.md", "unreachable-rule", "warning"),
    ]


def test_empty_files() -> None:
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


def test_no_imports() -> None:
    ws = make({".github/copilot-instructions.md": "@docs/a.md", "docs/a.md": "a"})
    assert [r[0] for r in rows(ws)] == [".github/copilot-instructions.md"]


def test_detect_and_reads() -> None:
    assert COPILOT.detect(make({".github/copilot-instructions.md": "x"}))
    assert COPILOT.detect(make({".github/instructions/a.instructions.md": "x"}))
    assert not COPILOT.detect(make({"AGENTS.md": "x", ".github/workflows/ci.yml": ""}))
    ws = make({})
    assert COPILOT.reads(ws, ".github/instructions/x/a.instructions.md")
    assert COPILOT.reads(ws, "pkg/AGENTS.md")
    assert not COPILOT.reads(ws, ".github/instructions/a.md")
    assert not COPILOT.reads(make({}, useAgentsMdFile=False), "AGENTS.md")


def _state(ws: Workspace) -> tuple[object, ...]:
    return (sorted((f.path, f.span, f.code, f.message) for f in COPILOT.findings(ws)),
            rows(ws, "src/a.ts"), rows(ws))


def test_edits_give_what_a_fresh_workspace_gives() -> None:
    files = dict(BASE)
    ws = make(files)
    _state(ws)
    edits = [
        (".github/instructions/ts.instructions.md", "---\napplyTo: 'nothing/**'\n---\nts"),
        (".github/instructions/all.instructions.md", "---\napplyTo: [oops\n  x: 1\n---\nall"),
        (".github/copilot-instructions.md", ""),
        (".github/instructions/ts.instructions.md", "---\napplyTo: 'src/*.ts'\n---\nts again"),
    ]
    reader = ws.reader
    assert isinstance(reader, MemoryReader)
    for key, text in edits:
        files[key] = text
        reader.files["/w/" + key] = text.encode()
        ws.update(changed={key})
        assert _state(ws) == _state(make(files)), key
