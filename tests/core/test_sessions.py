"""Sessions: a run replayed step by step (docs/sessions.md). One case per seed sentence about
when things join, written from the seeds, plus the input formats (a Claude Code session log
and a Mastra message list written by hand) and malformed input."""

from __future__ import annotations

import json

import pytest
from core_helpers import make_ws
from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap.profiles import get_profile
from rulemap.profiles.steps import ToolStep
from rulemap.session.replay import replay
from rulemap.session.transcripts import parse_steps, parse_text, parse_tokens

ROOT = "/w"


def run(ws, *steps, profile="cogitator", cwd=None):
    parsed = parse_tokens(steps, ROOT)
    assert not parsed.problems, parsed.problems
    return replay(ws, parsed.steps, profile, cwd)


def joined(result):
    """[(step, path, reason)] of everything that joined, in order."""
    return [(s.index, f.path, f.reason) for s in result.steps for f in s.joined]


def at(result, index):
    return [f.path for f in result.steps[index].joined]


# ----------------------------------------------------------------------------- cogitator

RULES = {
    "AGENTS.md": "Root.\n",
    ".claude/rules/api.md": "---\npaths:\n  - 'src/api/**'\n---\nAPI rule.\n",
    ".claude/rules/always.md": "Always.\n",
    "src/api/a.ts": "a", "src/api/b.ts": "b", "src/web/c.ts": "c",
    "pkg/AGENTS.md": "Pkg, see @notes.md\n", "pkg/notes.md": "Notes.\n", "pkg/x.py": "",
    "pkg/sub/AGENTS.md": "Sub.\n", "pkg/sub/y.py": "", "pkg/other/z.py": "",
}

# (seed sentence, steps, expected [(step, path, reason)] of what joins)
COGITATOR_CASES = [
    (
        "start-up: project files and unconditional rules root→cwd, with imports",
        [],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule")],
    ),
    (
        "a rule with paths joins the first time a tool reads a file it matches; a second "
        "touch brings nothing",
        ["read:src/api/a.ts", "edit:src/api/b.ts", "read:src/api/a.ts"],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule"),
         (1, ".claude/rules/api.md", "scoped")],
    ),
    (
        "a file no rule matches brings no rule",
        ["read:src/web/c.ts"],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule")],
    ),
    (
        "a nested directory's files join once a tool reads a file there, with their imports",
        ["read:src/web/c.ts", "read:pkg/x.py", "read:pkg/x.py"],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule"),
         (2, "pkg/AGENTS.md", "nested"), (2, "pkg/notes.md", "import")],
    ),
    (
        "nested files below cwd on the way to the path, shallow first, each once",
        ["edit:pkg/sub/y.py", "read:pkg/x.py", "read:pkg/other/z.py"],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule"),
         (1, "pkg/AGENTS.md", "nested"), (1, "pkg/notes.md", "import"),
         (1, "pkg/sub/AGENTS.md", "nested")],
    ),
    (
        "a step of several paths: each path's nested files, then its rules, in order",
        ["read:pkg/x.py,src/api/a.ts"],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule"),
         (1, "pkg/AGENTS.md", "nested"), (1, "pkg/notes.md", "import"),
         (1, ".claude/rules/api.md", "scoped")],
    ),
    (
        "a search over a directory brings its nested files but no rule (rules join for a file)",
        ["read:src/api/", "read:pkg/sub/"],
        [(0, "AGENTS.md", "project"), (0, ".claude/rules/always.md", "rule"),
         (2, "pkg/AGENTS.md", "nested"), (2, "pkg/notes.md", "import"),
         (2, "pkg/sub/AGENTS.md", "nested")],
    ),
]


@pytest.mark.parametrize("spec, steps, expected", COGITATOR_CASES, ids=[c[0][:50] for c in
                                                                        COGITATOR_CASES])
def test_cogitator_when_things_join(spec, steps, expected):
    assert joined(run(make_ws(RULES), *steps)) == expected


def test_paths_below_cwd_only_nest_and_rules_come_from_the_chain():
    ws = make_ws({**RULES, "pkg/.claude/rules/deep.md": "---\npaths: ['**/*.py']\n---\nPy.\n"})
    result = run(ws, "read:pkg/sub/y.py", "read:src/api/a.ts", cwd="pkg")
    # from cwd pkg: pkg/AGENTS.md is a project file; pkg's rules are of the chain
    assert at(result, 0) == ["AGENTS.md", ".claude/rules/always.md", "pkg/AGENTS.md",
                             "pkg/notes.md"]
    assert at(result, 1) == ["pkg/sub/AGENTS.md", "pkg/.claude/rules/deep.md"]
    assert at(result, 2) == [".claude/rules/api.md"]


def test_a_run_never_brings_a_file_twice():
    files = {
        "AGENTS.md": "Root @.claude/rules/api.md\n",
        ".claude/rules/api.md": "---\npaths: ['src/**']\n---\nAPI.\n",
        "pkg/CLAUDE.md": "alias",
        "pkg/x.py": "", "src/a.ts": "",
    }
    ws = make_ws(files, symlinks={"pkg/CLAUDE.md": "../AGENTS.md"})
    result = run(ws, "read:src/a.ts", "read:pkg/x.py", "read:src/a.ts")
    assert at(result, 0) == ["AGENTS.md", ".claude/rules/api.md"]
    # the rule was imported at start-up, the nested CLAUDE.md is the root AGENTS.md
    assert [s.joined for s in result.steps[1:]] == [(), (), ()]
    paths = [f.path for s in result.steps for f in s.joined]
    assert len(paths) == len(set(paths))


def budget_ws():
    return make_ws({
        "AGENTS.md": "r" * 10,
        "a/AGENTS.md": "a" * 10, "a/x.ts": "",
        "b/AGENTS.md": "b" * 10, "b/x.ts": "",
        "c/AGENTS.md": "c" * 10, "c/x.ts": "",
    }, maxChars=25)


def test_the_budget_is_shared_across_steps():
    result = run(budget_ws(), "read:a/x.ts", "read:b/x.ts", "read:c/x.ts")
    used = [(s.used, s.left) for s in result.steps]
    assert used == [(10, 15), (20, 5), (25, 0), (25, 0)]
    # b/AGENTS.md fits alone; it is cut because a/AGENTS.md came first, in another step
    step2 = result.steps[2]
    assert [(f.path, f.chars, f.cut) for f in step2.joined] == [("b/AGENTS.md", 5, True)]
    assert step2.joined[0].text == "bbbbb"
    assert result.steps[3].left_out == ("c/AGENTS.md",) and not result.steps[3].joined
    assert result.first_cut_step == 2
    assert result.notice == ("[Rulemap: instructions truncated at 25 characters. "
                             "Cut: b/AGENTS.md. Left out: c/AGENTS.md.]")
    assert result.steps[2].notice.endswith("Cut: b/AGENTS.md.]")


def test_the_order_of_steps_decides_what_is_cut():
    result = run(budget_ws(), "read:c/x.ts", "read:a/x.ts")
    assert [(f.path, f.cut) for f in result.steps[1].joined] == [("c/AGENTS.md", False)]
    assert result.steps[2].cut == ("a/AGENTS.md",)


def test_once_the_budget_left_something_out_everything_after_is_left_out():
    ws = make_ws({"AGENTS.md": "r" * 30, "a/AGENTS.md": "", "a/x.ts": "",
                  "b/AGENTS.md": "b", "b/x.ts": ""}, maxChars=20)
    result = run(ws, "read:b/x.ts")
    assert result.steps[0].cut == ("AGENTS.md",)
    assert result.steps[1].left_out == ("b/AGENTS.md",)
    assert result.first_cut_step == 0


@pytest.mark.parametrize("target", ["src/api/a.ts", "pkg/sub/y.py", "pkg/x.py", "src/web/c.ts",
                                    "elsewhere.txt", None])
@pytest.mark.parametrize("max_chars", [32000, 20])
def test_explain_is_a_one_step_session(target, max_chars):
    ws = make_ws(RULES, maxChars=max_chars)
    explanation = get_profile("cogitator").explain(ws, target, "")
    steps = [ToolStep("read", (target,))] if target else []
    result = replay(make_ws(RULES, maxChars=max_chars), steps, "cogitator")
    files = [f for s in result.steps for f in s.joined]
    key = [(f.path, f.reason, f.imported_by, f.depth, f.chars, f.cut, f.text) for f in files]
    assert key == [(f.path, f.reason, f.imported_by, f.depth, f.chars, f.cut, f.text)
                   for f in explanation.files]
    assert [p for s in result.steps for p in s.left_out] == explanation.left_out
    assert result.notice == explanation.notice


def test_reach_memo_is_shared_by_explain_and_a_session():
    from rulemap.profiles.cogitator import reach

    ws = make_ws(RULES)
    get_profile("cogitator").explain(ws, "pkg/sub/y.py", "")
    start = reach.start(ws, ("",))
    state = reach.reach(ws, start, ["pkg/sub/y.py"])
    assert state.key == ("base-load", ("",), "pkg/sub")
    assert state.load is ws.derived.get(("base-load", ("",), "pkg/sub"))
    # a later step elsewhere builds the run's own link on it, and no memo entry
    before = len(ws.derived)
    later = reach.reach(ws, state, ["pkg/other/z.py", "src/api/a.ts"])
    assert later.key is not None and later.key[0] == "group-load"
    elsewhere = reach.reach(ws, later, ["pkg/x.py"])
    assert elsewhere.load is later.load  # nothing new: pkg was joined on the way to pkg/sub
    assert len(ws.derived) >= before


# ----------------------------------------------------------------------------- mastra

MASTRA = {
    "AGENTS.md": "Root.\n",
    "a/AGENTS.md": "A.\n",
    "a/b/CLAUDE.md": "B.\n",
    "a/b/c/AGENTS.md": "C.\n", "a/b/c/x.ts": "",
    "d/CONTEXT.md": "D.\n", "d/y.ts": "",
}


def mastra_ws(**options):
    return make_ws(MASTRA, profiles={"mastra": options}) if options else make_ws(MASTRA)


def test_mastra_one_injection_per_model_step_nearest_first():
    result = run(mastra_ws(), "read:a/b/c/x.ts", "read:a/b/c/x.ts", "read:a/b/c/x.ts",
                 profile="mastra")
    assert [at(result, i) for i in range(4)] == [
        [], ["a/b/c/AGENTS.md"], ["a/b/CLAUDE.md"], ["a/AGENTS.md"]]
    assert [f.step for s in result.steps for f in s.joined] == [1, 2, 3]
    assert any("1 more file would be injected" in n and "AGENTS.md" in n for n in result.notes)


def test_mastra_scans_the_newest_tool_call_first():
    result = run(mastra_ws(), "read:a/b/c/x.ts", "read:d/y.ts", "read:d/y.ts", profile="mastra")
    # step 2: the newest call (d/y.ts) first; step 3: still the newest call's ancestry (up to
    # the root) before the older call's
    assert [at(result, i) for i in (1, 2, 3)] == [
        ["a/b/c/AGENTS.md"], ["d/CONTEXT.md"], ["AGENTS.md"]]
    later = run(mastra_ws(), "read:a/b/c/x.ts", "read:d/y.ts", "read:d/y.ts", "read:d/y.ts",
                profile="mastra")
    assert at(later, 4) == ["a/b/CLAUDE.md"]


def test_mastra_ignored_paths_are_never_injected():
    result = run(mastra_ws(ignoredInstructionPaths=["AGENTS.md", "a/AGENTS.md"]),
                 *["read:a/b/c/x.ts"] * 5, profile="mastra")
    paths = [f.path for s in result.steps for f in s.joined]
    assert paths == ["a/b/c/AGENTS.md", "a/b/CLAUDE.md"]
    assert not any("more file" in n for n in result.notes)


def test_mastra_budget_is_per_file_tokens():
    ws = make_ws({"a/AGENTS.md": "x" * 40 + "\n" + "y" * 40 + "\n", "a/f.ts": ""},
                 profiles={"mastra": {"maxTokens": 12}})
    result = run(ws, "read:a/f.ts", profile="mastra")
    injected = result.steps[1].joined[0]
    assert injected.truncated and result.steps[1].cut == ("a/AGENTS.md",)
    assert result.first_cut_step == 1 and result.budget.unit == "tokens"
    assert result.steps[1].used == injected.tokens and result.steps[1].left is None


# ----------------------------------------------------------------------------- claude-code

CLAUDE = {
    "CLAUDE.md": "Root.\n",
    ".claude/rules/py.md": "---\npaths: ['**/*.py']\n---\nPython.\n",
    "pkg/CLAUDE.md": "Pkg @notes.md\n", "pkg/notes.md": "Notes.\n", "pkg/x.py": "",
    "pkg/y.py": "", "pkg/r.md": "",
}


def test_claude_code_subdirectory_memory_and_rules_join_on_first_touch():
    result = run(make_ws(CLAUDE), "read:pkg/r.md", "read:pkg/x.py", "edit:pkg/y.py",
                 profile="claude-code")
    assert at(result, 0) == ["CLAUDE.md"]
    assert at(result, 1) == ["pkg/CLAUDE.md", "pkg/notes.md"]
    assert at(result, 2) == [".claude/rules/py.md"]
    assert at(result, 3) == []
    assert result.has_step_model and result.budget.kind == "none"


# ----------------------------------------------------------------------------- no model


@pytest.mark.parametrize("name", ["codex", "copilot", "cursor"])  # gemini: test_gemini_release
def test_profiles_without_a_step_model_say_so(name):
    result = run(make_ws(RULES), "read:src/api/a.ts", profile=name)
    data = result.to_json()
    assert data["hasStepModel"] is False
    assert "no per-step model" in data["note"] and f"--profile {name}" in data["note"]
    assert [s["joined"] for s in data["steps"][1:]] == [[]]


def test_json_shape_is_stable():
    data = run(budget_ws(), "read:a/x.ts").to_json()
    assert list(data) == ["profile", "title", "root", "cwd", "hasStepModel", "note", "budget",
                          "steps", "firstCutStep", "notice", "notes", "problems"]
    step = data["steps"][1]
    assert list(step) == ["index", "kind", "paths", "joined", "leftOut", "cut", "used", "left",
                          "notice", "skipped"]
    assert step["joined"][0] == {"path": "a/AGENTS.md", "reason": "nested", "importedBy": None,
                                 "depth": 0, "chars": 10, "cut": False}
    json.dumps(data)


# ----------------------------------------------------------------------------- input

# a Claude Code session log as it lands in ~/.claude/projects/<project>/<session>.jsonl
CLAUDE_LOG = "\n".join(json.dumps(e) for e in [
    {"type": "summary", "summary": "Fix the login test", "leafUuid": "u0"},
    {"type": "user", "cwd": "/w", "sessionId": "s1", "uuid": "u1",
     "message": {"role": "user", "content": "Why does the login test fail?"}},
    {"type": "assistant", "cwd": "/w", "sessionId": "s1", "uuid": "u2", "parentUuid": "u1",
     "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [
                     {"type": "text", "text": "Let me look."},
                     {"type": "tool_use", "id": "toolu_1", "name": "Read",
                      "input": {"file_path": "/w/src/api/a.ts"}}]}},
    {"type": "user", "cwd": "/w", "uuid": "u3",
     "message": {"role": "user", "content": [
         {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]}},
    {"type": "assistant", "cwd": "/w/pkg", "uuid": "u4",
     "message": {"role": "assistant", "content": [
         {"type": "tool_use", "id": "toolu_2", "name": "Grep",
          "input": {"pattern": "login", "path": "/w/pkg/sub"}},
         {"type": "tool_use", "id": "toolu_3", "name": "Bash",
          "input": {"command": "pnpm test"}},
         {"type": "tool_use", "id": "toolu_4", "name": "Glob", "input": {"pattern": "**/*.ts"}},
         {"type": "tool_use", "id": "toolu_5", "name": "Edit",
          "input": {"file_path": "x.py", "old_string": "a", "new_string": "b"}},
         {"type": "tool_use", "id": "toolu_6", "name": "Write",
          "input": {"file_path": "/etc/passwd", "content": ""}},
         {"type": "tool_use", "id": "toolu_7", "name": "NotebookEdit",
          "input": {"notebook_path": "/w/nb/n.ipynb", "new_source": ""}},
         {"type": "tool_use", "id": "toolu_8", "name": "MultiEdit",
          "input": {"edits": []}}]}},
]) + "\n{not json\n[1, 2]\n{\"neither\": 1}\n"


def test_claude_code_session_log():
    parsed = parse_text(CLAUDE_LOG, ROOT)
    assert parsed.format == "claude-code"
    assert [(s.kind, s.paths, s.source) for s in parsed.steps] == [
        ("read", ("src/api/a.ts",), 3),
        ("read", ("pkg/sub",), 5),  # the engine marks a directory: `pkg/sub/`
        ("edit", ("pkg/x.py",), 5),  # relative to the entry's cwd
        ("edit", ("nb/n.ipynb",), 5),
    ]
    problems = [(p.line, p.message) for p in parsed.problems]
    # named by its line, never quoted: a transcript's content is not echoed
    assert problems[0][0] == 5 and "/etc/passwd" not in problems[0][1] \
        and "outside" in problems[0][1]
    assert problems[1][0] == 5 and "MultiEdit" in problems[1][1]
    assert [p[0] for p in problems[2:]] == [6, 7, 8]
    result = replay(make_ws(RULES), parsed.steps, "cogitator", problems=parsed.problems)
    assert at(result, 1) == [".claude/rules/api.md"]
    assert result.steps[2].paths == ("pkg/sub/",)
    assert at(result, 2) == ["pkg/AGENTS.md", "pkg/notes.md", "pkg/sub/AGENTS.md"]
    assert result.to_json()["problems"][0]["line"] == 5


MASTRA_MESSAGES = [
    {"role": "user", "content": "Fix it"},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Reading."},
        {"type": "tool-call", "toolCallId": "c1", "toolName": "readFile",
         "args": {"path": "a/b/c/x.ts"}},
        {"type": "tool-call", "toolCallId": "c2", "toolName": "readFile",
         "args": {"path": "never-completed.ts"}}]},
    {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "result": "x"}]},
    {"role": "assistant", "toolInvocations": [
        {"state": "result", "toolCallId": "c3", "toolName": "writeFile",
         "args": {"filePath": "/w/d/y.ts"}, "result": "ok"},
        {"state": "call", "toolCallId": "c4", "toolName": "readFile", "args": {"path": "z"}}]},
    {"role": "assistant", "parts": [
        {"type": "tool-invocation", "toolInvocation": {
            "state": "result", "toolName": "moveFile",
            "args": {"target": "a/b/c/x.ts", "destination": "/elsewhere/x.ts"}}}]},
    "not a message",
]


def test_mastra_message_list():
    parsed = parse_text(json.dumps(MASTRA_MESSAGES), ROOT)
    assert parsed.format == "mastra"
    assert [(s.kind, s.paths, s.source) for s in parsed.steps] == [
        ("read", ("a/b/c/x.ts",), 2), ("edit", ("d/y.ts",), 4), ("edit", ("a/b/c/x.ts",), 5)]
    assert [p.line for p in parsed.problems] == [5, 6]
    result = replay(mastra_ws(), parsed.steps, "mastra")
    assert [at(result, i) for i in (1, 2, 3)] == [
        ["a/b/c/AGENTS.md"], ["d/CONTEXT.md"], ["a/b/CLAUDE.md"]]


def test_steps_file_and_command_line():
    data = [{"kind": "read", "paths": ["src/a.ts", "/w/b.ts"]}, {"kind": "look", "paths": []},
            {"kind": "edit", "paths": "c.py"}, {"kind": "edit", "paths": [1]}, 7]
    parsed = parse_text(json.dumps(data), ROOT)
    assert parsed.format == "steps"
    assert [(s.kind, s.paths, s.source) for s in parsed.steps] == [
        ("read", ("src/a.ts", "b.ts"), 1), ("edit", ("c.py",), 3)]
    assert [p.line for p in parsed.problems] == [2, 4, 5]
    assert parse_steps(data, ROOT).steps == parsed.steps
    tokens = parse_tokens(["read:a.ts,b/c.ts", "edit:../x.py", "bogus", "write:a"], ROOT,
                          "/w/sub")
    assert [s.paths for s in tokens.steps] == [("sub/a.ts", "sub/b/c.ts"), ("x.py",)]
    assert [p.line for p in tokens.problems] == [3, 4]


@pytest.mark.parametrize("text", [
    "", "   ", "[", "{", "[1, {\"kind\": null}]", "{\"steps\": 3}", "null", "\ufeff[]",
    "[" * 100000, "{\"type\": \"assistant\", \"message\": {\"content\": 5}}",
    "{\"type\": \"assistant\", \"message\": {\"content\": [{\"type\": \"tool_use\", "
    "\"name\": \"Read\", \"input\": {\"file_path\": {\"a\": 1}}}]}}",
    "[{\"role\": \"assistant\", \"content\": [{\"type\": \"tool-call\", \"toolCallId\": {}}]}]",
    "[{\"role\": \"tool\", \"content\": [{\"type\": \"tool-result\", \"toolCallId\": [1]}]}]",
    "read:a.ts\nedit:b.ts", "just words here",
])
def test_malformed_input_is_reported_never_raised(text):
    parsed = parse_text(text, ROOT)
    for problem in parsed.problems:
        assert problem.message
    replay(make_ws(RULES), parsed.steps, "cogitator", problems=parsed.problems)


# ----------------------------------------------------------------------------- properties


DIRS = ["", "a", "a/b", "a/b/c", "d", "d/e"]
TARGETS = [f"{d}/f.ts" if d else "f.ts" for d in DIRS] + ["a/b/g.py", "d/h.py", "a/"]


@st.composite
def workspaces(draw):
    files: dict[str, str] = {}
    for directory in DIRS:
        if draw(st.booleans()):
            imports = draw(st.lists(st.sampled_from(["@/w/x.md", "@/w/y.md", "@/w/a/AGENTS.md"]),
                                    max_size=2))
            name = f"{directory}/AGENTS.md" if directory else "AGENTS.md"
            files[name] = draw(st.text("ab\n", max_size=12)) + " ".join(imports) + "\n"
        files[f"{directory}/f.ts" if directory else "f.ts"] = ""
    files.update({"x.md": "xx @/w/y.md\n", "y.md": "yyy\n", "a/b/g.py": "", "d/h.py": ""})
    for number, glob in enumerate(draw(st.lists(st.sampled_from(["**/*.py", "a/**", "**/*.ts",
                                                                  "d/*"]), max_size=3))):
        rule = f"---\npaths: ['{glob}']\n---\nrule {number} @/w/x.md\n"
        files[f".claude/rules/r{number}.md"] = rule
    return files, draw(st.integers(10, 80))


@settings(max_examples=150, deadline=None)
@given(workspaces(), st.lists(st.lists(st.sampled_from(TARGETS), min_size=1, max_size=2),
                              max_size=6))
def test_a_run_keeps_the_seed_rules(workspace, steps):
    files, limit = workspace
    tool_steps = [ToolStep("read", tuple(s)) for s in steps]
    result = replay(make_ws(files, maxChars=limit), tool_steps, "cogitator")
    paths = [f.path for s in result.steps for f in s.joined] + \
        [p for s in result.steps for p in s.left_out]
    assert len(paths) == len(set(paths))  # never brought twice
    used = [s.used for s in result.steps]
    assert used == sorted(used) and used[-1] <= limit
    assert used[-1] == sum(f.chars for s in result.steps for f in s.joined)
    left_out_yet = False
    for step in result.steps:
        for f in step.joined:
            assert not (left_out_yet and f.chars > 0)  # after a file is left out, all are
        left_out_yet = left_out_yet or bool(step.left_out)
    # the memo never changes an answer: the same run after explaining every target
    warm = make_ws(files, maxChars=limit)
    for target in TARGETS:
        get_profile("cogitator").explain(warm, target.rstrip("/") + ("/f.ts" if
                                                                   target.endswith("/") else ""),
                                         "")
    assert replay(warm, tool_steps, "cogitator").to_json() == result.to_json()
    # and a one-step session is explain
    if steps and not steps[0][0].endswith("/"):
        target = steps[0][0]
        explanation = get_profile("cogitator").explain(make_ws(files, maxChars=limit), target, "")
        first = replay(make_ws(files, maxChars=limit), [ToolStep("read", (target,))])
        assert [(f.path, f.chars, f.cut) for s in first.steps for f in s.joined] == [
            (f.path, f.chars, f.cut) for f in explanation.files]
        assert [p for s in first.steps for p in s.left_out] == explanation.left_out


class _Stop(Exception):
    pass


@pytest.mark.parametrize("profile", ["cogitator", "claude-code", "mastra", "codex"])
def test_a_replay_stops_at_the_step_its_check_raises(profile: str) -> None:
    """A cancelled `rulemap/session` request stops the run at its next step (the server
    passes its token's `check`), whatever agent replays it: no agent's model takes every
    step up front."""
    files = {"AGENTS.md": "root", **{f"p{i}/AGENTS.md": f"pkg {i}" for i in range(40)},
             **{f"p{i}/x.ts": "" for i in range(40)}}
    ws = make_ws(files)
    steps = [ToolStep("read", (f"p{i}/x.ts",)) for i in range(40)]
    taken = []

    def check() -> None:
        taken.append(1)
        if len(taken) == 3:
            raise _Stop

    with pytest.raises(_Stop):
        replay(ws, steps, profile, check=check)
    assert len(taken) == 3
    # unchecked, the same run replays every step
    assert len(replay(ws, steps, profile).steps) == 41


@pytest.mark.parametrize("profile", ["cogitator", "claude-code"])
def test_a_replay_checks_between_the_steps_it_computes(profile: str) -> None:
    """The check comes between two steps' work, not all at once before it (a list built from
    every step first would see a cancel only before the run starts): the derived cache, where
    these agents keep each step's load, grows between the checks. (Mastra's run keeps its
    search in the run itself, and walks its steps one at a time.)"""
    files = {"AGENTS.md": "root", **{f"p{i}/AGENTS.md": f"pkg {i}" for i in range(12)},
             **{f"p{i}/x.ts": "" for i in range(12)}}
    ws = make_ws(files)
    steps = [ToolStep("read", (f"p{i}/x.ts",)) for i in range(12)]
    sizes: list[int] = []
    replay(ws, steps, profile, check=lambda: sizes.append(len(ws.derived)))
    assert len(sizes) >= 12 and len(set(sizes)) > 1, sizes


def test_a_step_may_name_the_agents_tool():
    # Claude Code brings nested memory on its Read tool only: a step naming `Grep` brings none
    data = [{"kind": "read", "paths": ["pkg/a.ts"], "tool": "Grep"},
            {"kind": "read", "paths": ["pkg/a.ts"], "tool": 7},
            {"kind": "read", "paths": ["pkg/b.ts"], "tool": "Read"}]
    parsed = parse_steps(data, ROOT)
    assert [(s.tool, s.paths) for s in parsed.steps] == [
        ("Grep", ("pkg/a.ts",)), (None, ("pkg/a.ts",)), ("Read", ("pkg/b.ts",))]
    assert [p.line for p in parsed.problems] == [2]
    ws = make_ws({"CLAUDE.md": "root", "pkg/CLAUDE.md": "pkg", "pkg/a.ts": "", "pkg/b.ts": ""})
    run = replay(ws, parsed.steps[:1] + parsed.steps[2:], profile="claude-code")
    joined = [[f.path for f in step.joined] for step in run.steps]
    assert joined == [["CLAUDE.md"], [], ["pkg/CLAUDE.md"]]
