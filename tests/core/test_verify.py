"""`rulemap verify LOG`: each agent's log read into steps, compared with Rulemap's prediction
from the agent's own model — recorded logs in each format (tests/verify/fixtures, built from
the formats' public documentation and source: see its README), agreeing and with
disagreements planted on purpose; and the command through its entry point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.core.conftest import RunCli
from tests.core.core_helpers import make_ws

from rulemap.profiles import PROFILES
from rulemap.profiles.load_log import LoadLog, LoadLogError
from rulemap.verify import log_formats, parse_load_log, verify_log

FIXTURES = Path(__file__).resolve().parents[1] / "verify" / "fixtures"
RECORDED_ROOT = "/home/dev/proj"  # where the project was when the logs were recorded
LOGS = {"claude-code": "claude-code/{}.jsonl", "gemini": "gemini/{}.jsonl",
        "codex": "codex/{}.json"}


def _workspace_files() -> dict[str, str]:
    base = FIXTURES / "workspace"
    files = {p.relative_to(base).as_posix(): p.read_text(encoding="utf-8")
             for p in base.rglob("*") if p.is_file()}
    files[".git"] = ""  # the project root of agents that look for one
    return files


def _lines(agent: str, kind: str, root: str = "/w") -> list[tuple[int, str]]:
    text = (FIXTURES / LOGS[agent].format(kind)).read_text(encoding="utf-8")
    text = text.replace(RECORDED_ROOT, root)
    return list(enumerate(text.splitlines(keepends=True), 1))


def _parse(agent: str, kind: str) -> LoadLog:
    return parse_load_log(_lines(agent, kind))


def _verdicts(agent: str, kind: str) -> dict[str, tuple[str, int | None]]:
    ws = make_ws(_workspace_files())
    result = verify_log(ws, _parse(agent, kind))
    return {r.path: (r.verdict, r.step) for r in result.rows}


# ----- the formats ---------------------------------------------------------------------------


def test_the_three_agents_declare_a_load_log_and_the_others_none() -> None:
    assert {f.agent for f in log_formats()} == {"claude-code", "gemini", "codex"}
    assert all(p.load_log_format is None for n, p in PROFILES.items()
               if n not in ("claude-code", "gemini", "codex"))


@pytest.mark.parametrize("agent", sorted(LOGS))
def test_the_format_is_told_apart_by_content(agent: str) -> None:
    assert _parse(agent, "agree").agent == agent
    assert _parse(agent, "planted").agent == agent


def test_claude_code_events_give_steps_by_trigger_and_parent() -> None:
    log = _parse("claude-code", "agree")
    assert log.cwd == "/w"
    assert log.triggers == ["/w/packages/api/src/users.ts", "/w/packages/web/src/Button.tsx"]
    got = [(load.path, load.step, load.reason, load.user, load.compared) for load in log.loads]
    assert got == [  # the earlier session's line is not read
        ("/w/CLAUDE.md", 0, "session_start", False, True),
        ("/w/docs/style.md", 0, "include", False, True),
        ("/home/dev/.claude/CLAUDE.md", 0, "session_start", True, True),
        ("/w/packages/api/CLAUDE.md", 1, "nested_traversal", False, True),
        ("/w/.claude/rules/api.md", 1, "path_glob_match", False, True),
        ("/w/packages/web/CLAUDE.md", 2, "nested_traversal", False, True),
        ("/w/.claude/rules/web.md", 2, "path_glob_match", False, True),
        ("/w/CLAUDE.md", None, "compact", False, False),
    ]


def test_gemini_steps_are_the_high_intent_tool_calls_and_their_context_blocks() -> None:
    log = _parse("gemini", "agree")
    assert not log.start_up
    # grep_search brings no just-in-time context: no step; the read first recorded while
    # executing counts once, with its result
    assert log.triggers == ["/w/packages/api/src/users.ts", "/w/packages/web/src"]
    assert [(load.path, load.step) for load in log.loads] == [
        ("/w/packages/api/GEMINI.md", 1),
        ("/w/packages/web/GEMINI.md", 2),
        ("/w/packages/web/src/GEMINI.md", 2),
    ]


def test_the_codex_prompt_is_text_split_at_the_project_doc_separator() -> None:
    log = _parse("codex", "agree")
    assert log.cwd == "/w/packages/api"
    user, project = log.loads
    assert user.user and user.path is None and user.text == "Answer in English."
    assert not project.user and project.step == 0
    assert project.text is not None and project.text.startswith("# Project (Codex, Gemini)")
    assert project.text.rstrip().endswith("One handler per route in src/.")


def test_the_codex_prompt_is_read_as_pasted_text_too() -> None:
    messages = json.loads((FIXTURES / "codex" / "agree.json").read_text(encoding="utf-8"))
    text = messages[1]["content"][0]["text"].replace(RECORDED_ROOT, "/w")
    log = parse_load_log(list(enumerate(text.splitlines(keepends=True), 1)))
    assert log.agent == "codex" and log.cwd == "/w/packages/api" and len(log.loads) == 2


def test_a_broken_line_is_named_never_quoted() -> None:
    lines = _lines("claude-code", "agree")
    lines[2] = (3, '{"hook_event_name": "InstructionsLoaded", SECRET-TOKEN\n')
    with pytest.raises(LoadLogError) as caught:
        parse_load_log(lines)
    assert caught.value.line == 3 and "SECRET" not in caught.value.message
    event = {"hook_event_name": "InstructionsLoaded", "load_reason": "session_start"}
    with pytest.raises(LoadLogError) as caught:
        parse_load_log([(1, json.dumps(event) + "\n")])
    assert caught.value.line == 1 and "file_path" in caught.value.message


def test_a_log_of_no_known_format_is_refused() -> None:
    with pytest.raises(LoadLogError, match="not a log Rulemap reads"):
        parse_load_log([(1, '{"hello": "world"}\n')])


# ----- the comparison ------------------------------------------------------------------------


@pytest.mark.parametrize("agent", sorted(LOGS))
def test_a_recorded_log_that_agrees_agrees(agent: str) -> None:
    ws = make_ws(_workspace_files())
    result = verify_log(ws, _parse(agent, "agree"))
    assert result.agree, [(r.path, r.verdict, r.why) for r in result.disagreements]
    assert result.rows and all(r.verdict == "agree" for r in result.rows)


def test_claude_code_agreement_per_step_with_user_and_compacted_loads_apart() -> None:
    ws = make_ws(_workspace_files())
    result = verify_log(ws, _parse("claude-code", "agree"))
    assert [(r.step, r.path, r.observed, r.predicted) for r in result.rows] == [
        (0, "CLAUDE.md", "session_start", "project"),
        (0, "docs/style.md", "include", "import"),
        (1, "packages/api/CLAUDE.md", "nested_traversal", "nested"),
        (1, ".claude/rules/api.md", "path_glob_match", "scoped"),
        (2, "packages/web/CLAUDE.md", "nested_traversal", "nested"),
        (2, ".claude/rules/web.md", "path_glob_match", "scoped"),
    ]
    assert [(a.kind, a.what) for a in result.apart] == [
        ("user", "/home/dev/.claude/CLAUDE.md"), ("reload", "/w/CLAUDE.md")]


def test_claude_code_planted_disagreements() -> None:
    assert _verdicts("claude-code", "planted") == {
        "CLAUDE.md": ("agree", 0),
        "docs/CLAUDE.md": ("unexpected", 0),  # planted: loaded, not predicted
        "docs/style.md": ("missing", 0),  # planted: predicted (CLAUDE.md's import), not loaded
        "packages/api/CLAUDE.md": ("agree", 1),
        ".claude/rules/api.md": ("agree", 1),
        "packages/web/CLAUDE.md": ("step", 1),  # planted: loaded at step 1, predicted at 2
        ".claude/rules/web.md": ("agree", 2),
    }


def test_each_disagreement_says_what_rulemap_expected_and_why() -> None:
    ws = make_ws(_workspace_files())
    rows = {r.path: r for r in verify_log(ws, _parse("claude-code", "planted")).disagreements}
    assert "`import` (imported by CLAUDE.md:3)" in rows["docs/style.md"].why
    assert "start-up load from cwd . does not bring it" in rows["docs/CLAUDE.md"].why
    moved = rows["packages/web/CLAUDE.md"]
    assert moved.predicted_step == 2 and moved.line == 5
    assert "step 2 (touch packages/web/src/Button.tsx), as `nested`" in moved.why


def test_gemini_planted_disagreements() -> None:
    assert _verdicts("gemini", "planted") == {
        "packages/api/GEMINI.md": ("agree", 1),
        "packages/web/GEMINI.md": ("step", 1),  # planted: brought by the api read
        "docs/GEMINI.md": ("unexpected", 2),  # planted
        "packages/web/src/GEMINI.md": ("missing", 2),  # planted: not brought by Button.tsx
    }


def test_codex_planted_disagreements_found_by_text() -> None:
    assert _verdicts("codex", "planted") == {
        "AGENTS.md": ("agree", 0),
        "packages/web/AGENTS.md": ("unexpected", 0),  # planted: not read from packages/api
        "packages/api/AGENTS.md": ("missing", 0),  # planted: left out of the prompt
    }


def test_with_home_user_level_files_are_compared() -> None:
    files = _workspace_files()
    lines = _lines("claude-code", "agree")
    ws = make_ws(files)
    assert not any(r.path.startswith("/") for r in verify_log(ws, parse_load_log(lines)).rows)
    result = verify_log(ws, parse_load_log(lines), home=True)
    user = [r for r in result.rows if r.path == "/home/dev/.claude/CLAUDE.md"]
    # the workspace has no home to read it from, so Rulemap does not predict it
    assert [(r.verdict, r.observed) for r in user] == [("unexpected", "session_start")]


# ----- the command ---------------------------------------------------------------------------


def _project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "workspace", root)
    (root / ".git").mkdir()
    logs = tmp_path / "logs"
    for pattern in LOGS.values():
        for kind in ("agree", "planted"):
            name = pattern.format(kind)
            (logs / name).parent.mkdir(parents=True, exist_ok=True)
            text = (FIXTURES / name).read_text(encoding="utf-8")
            (logs / name).write_text(text.replace(RECORDED_ROOT, str(root)), encoding="utf-8")
    return root, logs


@pytest.mark.parametrize("agent", sorted(LOGS))
def test_cli_exit_0_when_the_log_agrees(cli: RunCli, tmp_path: Path, agent: str) -> None:
    root, logs = _project(tmp_path)
    code, out, err = cli(["verify", str(logs / LOGS[agent].format("agree"))], root)
    assert code == 0, err
    assert "agree" in out and "missing in log" not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_cli_exit_1_with_a_paragraph_per_disagreement(cli: RunCli, tmp_path: Path) -> None:
    root, logs = _project(tmp_path)
    code, out, err = cli(["verify", str(logs / "claude-code/planted.jsonl")], root)
    assert code == 1, err
    text = " ".join(out.split())
    assert "4 agree, 1 missing in the log, 1 unexpected, 1 at another step" in text
    assert "missing in the log: docs/style.md at step 0 (start-up): Rulemap expected it as " \
           "`import` (imported by CLAUDE.md:3)" in text
    assert "unexpected: docs/CLAUDE.md at step 0 (start-up) (log line 2)" in text
    assert "at another step: packages/web/CLAUDE.md, loaded at step 1 (touch " \
           "packages/api/src/users.ts) (log line 5): Rulemap expected it at step 2" in text


def test_cli_log_root_reads_a_log_recorded_elsewhere(cli: RunCli, tmp_path: Path) -> None:
    # the fixtures were recorded with the project at /home/dev/proj: without --log-root every
    # path lies outside this workspace; with it, they are this workspace's files
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "workspace", root)
    (root / ".git").mkdir()
    log = str(FIXTURES / "claude-code/planted.jsonl")
    code, out, _ = cli(["verify", log], root)
    text = " ".join(out.split())
    assert "outside the workspace, not compared" in text and "--log-root" in text
    code, out, err = cli(["verify", log, "--log-root", RECORDED_ROOT], root)
    assert code == 1, err
    assert "4 agree, 1 missing in the log, 1 unexpected, 1 at another step" in " ".join(
        out.split())


def test_cli_json(cli: RunCli, tmp_path: Path) -> None:
    root, logs = _project(tmp_path)
    code, out, _ = cli(["verify", str(logs / "gemini/planted.jsonl"), "--json"], root)
    assert code == 1
    data = json.loads(out)
    assert data["profile"] == "gemini" and data["agree"] is False
    assert data["counts"] == {"agree": 1, "missing": 1, "unexpected": 1, "step": 1}
    assert {r["path"]: r["verdict"] for r in data["rows"]}["docs/GEMINI.md"] == "unexpected"
    assert set(data["rows"][0]) == {"step", "access", "path", "verdict", "observed",
                                    "predicted", "why", "line", "predictedStep"}


def test_cli_bad_input_exit_2_naming_the_line(cli: RunCli, tmp_path: Path) -> None:
    root, logs = _project(tmp_path)
    log = logs / "claude-code/agree.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[3] = "{not json, PRIVATE"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = cli(["verify", str(log)], root)
    assert code == 2 and out == ""
    assert f"{log}:4: not valid JSON" in err and "PRIVATE" not in err
    code, _, err = cli(["verify", str(logs / "codex/agree.json"), "--profile", "cursor"], root)
    assert code == 2 and "reads no load log of Cursor" in err
    (tmp_path / "other.txt").write_text("hello\n", encoding="utf-8")
    code, _, err = cli(["verify", str(tmp_path / "other.txt")], root)
    assert code == 2 and "not a log Rulemap reads" in err
    code, _, err = cli(["verify", str(tmp_path / "none.jsonl")], root)
    assert code == 2 and "no such file" in err


def test_cli_help_teaches_each_format(cli: RunCli, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli(["verify", "--help"], tmp_path)
    out = capsys.readouterr().out
    for fmt in log_formats():
        assert f"rulemap verify {fmt.example}" in out and f"--profile {fmt.agent}" in out
    # the help's paragraphs are filled to 80 columns: a sentence may span lines
    assert ("0 when the log and Rulemap agree, 1 on a disagreement, 2 on bad input"
            in " ".join(out.split()))


def test_the_shipped_hook_appends_each_event_as_one_json_line() -> None:
    settings = json.loads((Path(__file__).resolve().parents[2] / "examples" / "hooks"
                           / "claude-code" / "settings.json").read_text(encoding="utf-8"))
    (entry,) = settings["hooks"]["InstructionsLoaded"]
    (hook,) = entry["hooks"]
    assert hook["type"] == "command" and "async" not in hook
    assert ".rulemap/instructions-loaded.jsonl" in hook["command"]
    assert "$CLAUDE_PROJECT_DIR" in hook["command"]


def test_a_format_named_with_profile_must_fit_the_log() -> None:
    with pytest.raises(LoadLogError, match="not the Codex CLI prompt"):
        parse_load_log(_lines("claude-code", "agree"), "codex")
    assert parse_load_log(_lines("codex", "agree"), "codex").agent == "codex"


def test_cli_a_log_linked_out_of_the_workspace_is_not_read(cli: RunCli, tmp_path: Path) -> None:
    root, logs = _project(tmp_path)
    (root / ".rulemap").mkdir()
    (root / ".rulemap" / "instructions-loaded.jsonl").symlink_to(
        logs / "claude-code" / "agree.jsonl")
    code, _, err = cli(["verify", ".rulemap/instructions-loaded.jsonl"], root)
    assert code == 2 and "symbolic link leading out of it" in err
    code, _, err = cli(["verify", str(logs / "claude-code" / "agree.jsonl")], root)
    assert code == 0, err
