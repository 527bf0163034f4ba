"""The gemini profile against the release it models (docs/profiles/gemini.md, "Facts and
sources"): just-in-time context by default, the file tools that trigger it, the start-up set,
the eager load as an option, and Gemini's pseudo-imports. One test per fact."""

from __future__ import annotations

from collections.abc import Sequence

from tests.core.test_gemini import GEMINI, found, make, rows

from rulemap.profiles.steps import ToolStep
from rulemap.workspace import Workspace

TREE = {
    "GEMINI.md": "root",
    "pkg/GEMINI.md": "pkg",
    "pkg/api/GEMINI.md": "api",
    "pkg/api/x.ts": "x",
    "pkg/web/GEMINI.md": "web",
    "pkg/web/y.ts": "y",
}


def joined(ws: Workspace, steps: Sequence[ToolStep], cwd: str = ".") -> list[list[str]]:
    replay = GEMINI.replay(ws, steps, cwd)
    assert replay is not None
    return [[f.path for f in s.joined] for s in replay.steps]


def test_jit_context_is_the_default():
    ws = make(TREE)
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]
    assert ("pkg/api/GEMINI.md", "nested", None, 0) in rows(ws, "pkg/api/x.ts")


def test_startup_is_global_and_cwd_up_to_the_git_root_only():
    ws = make({**TREE, "sub/.git": "gitdir: x", "sub/GEMINI.md": "sub",
               "sub/in/GEMINI.md": "in", "sub/in/deep/GEMINI.md": "deep"},
              home={".gemini/GEMINI.md": "global"})
    assert rows(ws, cwd="sub/in") == [
        ("/h/.gemini/GEMINI.md", "user", None, 0),
        ("sub/GEMINI.md", "project", None, 0),
        ("sub/in/GEMINI.md", "project", None, 0),
    ]


def test_jit_loads_from_the_git_root_down_to_the_touched_directory_once():
    ws = make(TREE)
    # root first; the start-up file is not loaded again; the sibling pkg/web is not touched
    assert rows(ws, "pkg/api/x.ts") == [
        ("GEMINI.md", "project", None, 0),
        ("pkg/GEMINI.md", "nested", None, 0),
        ("pkg/api/GEMINI.md", "nested", None, 0),
    ]
    assert any("read_file" in n for n in GEMINI.explain(ws, "pkg/api/x.ts", ".").notes)


def test_jit_loads_nothing_outside_the_cwd():
    ws = make(TREE)
    assert [r[0] for r in rows(ws, "pkg/web/y.ts", cwd="pkg/api")] == [
        "GEMINI.md", "pkg/GEMINI.md", "pkg/api/GEMINI.md"]


def test_only_the_context_discovering_tools_trigger_jit():
    ws = make(TREE)
    steps = [ToolStep("read", ("pkg/api/x.ts",), tool="grep_search"),
             ToolStep("read", ("pkg/api/x.ts",), tool="run_shell_command"),
             ToolStep("edit", ("pkg/web/y.ts",), tool="replace"),
             ToolStep("read", ("pkg/api/x.ts",), tool="read_file")]
    assert joined(ws, steps) == [
        ["GEMINI.md"], [], [], ["pkg/GEMINI.md", "pkg/web/GEMINI.md"], ["pkg/api/GEMINI.md"]]


def test_a_step_of_an_unnamed_tool_triggers_jit():
    ws = make(TREE)
    steps = [ToolStep("edit", ("pkg/web/y.ts",)), ToolStep("read", ("pkg/api/x.ts",))]
    assert joined(ws, steps) == [
        ["GEMINI.md"], ["pkg/GEMINI.md", "pkg/web/GEMINI.md"], ["pkg/api/GEMINI.md"]]


def test_list_directory_loads_the_listed_directorys_own_context_file():
    ws = make(TREE)
    steps = [ToolStep("read", ("pkg/api/",), tool="list_directory")]
    assert joined(ws, steps) == [["GEMINI.md"], ["pkg/GEMINI.md", "pkg/api/GEMINI.md"]]


def test_jit_brings_a_file_once_per_session():
    ws = make(TREE, symlinks={"pkg/web/GEMINI.md": "../../GEMINI.md"})
    steps = [ToolStep("read", ("pkg/api/x.ts",), tool="read_file"),
             ToolStep("read", ("pkg/api/x.ts",), tool="read_file"),
             ToolStep("read", ("pkg/web/y.ts",), tool="read_many_files")]
    # the second touch brings nothing; pkg/web/GEMINI.md is the root's file by identity
    assert joined(ws, steps) == [
        ["GEMINI.md"], ["pkg/GEMINI.md", "pkg/api/GEMINI.md"], [], []]


def test_project_dot_gemini_context_file_is_not_read_at_startup():
    ws = make({"GEMINI.md": "root", ".gemini/GEMINI.md": "dot", ".gemini/settings.json": "{}"})
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]
    assert [r[0] for r in rows(ws, ".gemini/settings.json")] == [
        "GEMINI.md", ".gemini/GEMINI.md"]


def test_jit_context_false_is_the_eager_load_with_the_downward_scan():
    ws = make(TREE, jitContext=False)
    assert rows(ws) == [
        ("GEMINI.md", "project", None, 0),
        ("pkg/GEMINI.md", "nested", None, 0),
        ("pkg/api/GEMINI.md", "nested", None, 0),
        ("pkg/web/GEMINI.md", "nested", None, 0),
    ]
    steps = [ToolStep("read", ("pkg/api/x.ts",), tool="read_file")]
    assert joined(ws, steps)[1:] == [[]]


def test_agents_md_is_a_context_file_only_when_named():
    files = {"GEMINI.md": "g", "AGENTS.md": "a"}
    assert [r[0] for r in rows(make(files))] == ["GEMINI.md"]
    assert [r[0] for r in rows(make(files, fileNames=["AGENTS.md", "GEMINI.md"]))] == [
        "AGENTS.md", "GEMINI.md"]


def test_load_status_of_a_nested_context_file_is_its_subtree():
    ws = make(TREE)
    status = GEMINI.load_status(ws, "pkg/api/GEMINI.md")
    assert (status.loads, status.files, status.target) == (True, 1, "pkg/api/x.ts")
    assert GEMINI.load_status(make(TREE, jitContext=False), "pkg/api/GEMINI.md").files == 6


def test_pseudo_import_is_import_not_followed():
    ws = make({"GEMINI.md": "Follow @{ policy.md } and @(style.md), meet @3pm\n",
               "policy.md": "p", "style.md": "s"})
    findings = sorted(GEMINI.findings(ws), key=lambda f: f.span)
    assert [(f.code, f.severity, f.span.start.col, f.span.end.col) for f in findings] == [
        ("import-not-followed", "warning", 7, 21),
        ("import-not-followed", "warning", 26, 37),
    ]
    assert "Gemini CLI's import parser does not read `@{ policy.md }`" in findings[0].message
    assert findings[0].message.endswith("Write `@policy.md`")
    assert [r[0] for r in rows(ws)] == ["GEMINI.md"]  # nothing imported
    assert found(make({"GEMINI.md": "see @policy.md\n", "policy.md": "p"})) == []
