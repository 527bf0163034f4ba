"""One front door (issue 36): every command takes the same shared flags — `--root`,
`--format` (`--json` its alias), `--profiles` (`--profile` a one-agent alias, `all`), `--cwd`,
`--home`, `--ref`, `--allow-imports-from`, `--platform`, `--color` — where they mean
something, and refuses with its reason the ones that mean nothing for it; did-you-mean for
commands, options, agents and codes; `rulemap rule`; `check PATH...` and `--exit-zero`; no
silent success.

The table below is written out, not derived from `cli/flags.py`: a flag dropped from a
command, or accepted where it means nothing, fails here."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli_runner import git_tree
from tests.core.conftest import RunCli

from rulemap.cli.main import build_parser
from rulemap.host.catalog import agent_names, checks

REPO = Path(__file__).resolve().parents[2]

# every command's positional arguments, the least that parses
POSITIONALS: dict[str, list[str]] = {
    "check": [], "explain": [], "compare": [], "reach": ["AGENTS.md"], "why": ["Use tabs"],
    "map": ["--html", "map.html"], "session": [], "verify": ["log.jsonl"], "diff": ["main"],
    "graph": [], "rule": ["broken-import"],
}
# the formats each command takes (the first its default)
FORMATS: dict[str, tuple[str, ...]] = {
    "check": ("text", "json", "sarif", "github"), "explain": ("text", "json"),
    "compare": ("text", "json"), "reach": ("text", "json"), "why": ("text", "json"),
    "map": ("text", "json"), "session": ("text", "json"), "verify": ("text", "json"),
    "diff": ("text", "json", "markdown"), "graph": ("json", "dot", "mermaid"),
    "rule": ("text", "json"),
}
# each shared flag with a value, and the attribute it sets
SHARED = {
    "--root": ("some/dir", "root"), "--profiles": ("cogitator", "profiles"),
    "--profile": ("cogitator", "profiles"), "--cwd": ("pkg", "cwd"),
    "--home": ("home", "home"), "--ref": ("HEAD", "ref"),
    "--allow-imports-from": ("dir", "allow_imports_from"), "--color": ("never", "color"),
    "--platform": ("macos", "platform"),
}
# the shared flags that mean nothing for a command
REFUSED: dict[str, set[str]] = {
    "graph": {"--cwd"}, "diff": {"--ref"},
    "rule": {"--root", "--profiles", "--profile", "--cwd", "--home", "--ref",
             "--allow-imports-from", "--platform"},
}
COMMANDS = sorted(POSITIONALS)


def _parse(args: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(args)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag", sorted(SHARED))
def test_every_command_takes_the_shared_flags_that_mean_something_for_it(
    command: str, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    value, dest = SHARED[flag]
    args = [command, *POSITIONALS[command], flag, value]
    if flag in REFUSED.get(command, set()):
        with pytest.raises(SystemExit) as exit:
            _parse(args)
        assert exit.value.code == 2
        err = capsys.readouterr().err
        # the reason, not argparse's "unrecognized arguments"
        assert f"{flag} does not apply to `rulemap {command}`:" in err
        assert "unrecognized" not in err
        return
    parsed = _parse(args)
    got = getattr(parsed, dest)
    assert got == ([value] if dest == "allow_imports_from" else value)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_its_formats_and_no_other(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _parse([command, *POSITIONALS[command]]).format == FORMATS[command][0]
    for fmt in FORMATS[command]:
        assert _parse([command, *POSITIONALS[command], "--format", fmt]).format == fmt
    others = {"text", "json", "sarif", "github", "markdown", "dot", "mermaid"}
    for fmt in sorted(others - set(FORMATS[command])):
        with pytest.raises(SystemExit):
            _parse([command, *POSITIONALS[command], "--format", fmt])
        assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("command", [c for c in COMMANDS if "json" in FORMATS[c]])
def test_json_is_format_json(command: str) -> None:
    base = [command, *POSITIONALS[command]]
    assert vars(_parse([*base, "--json"])) == vars(_parse([*base, "--format", "json"]))


@pytest.mark.parametrize("command", [c for c in COMMANDS if "--profiles" not in
                                     REFUSED.get(c, set())])
def test_profile_is_profiles_of_one(command: str) -> None:
    base = [command, *POSITIONALS[command]]
    one = vars(_parse([*base, "--profile", "gemini"]))
    many = vars(_parse([*base, "--profiles", "gemini"]))
    assert one.pop("profiles_flag") == "--profile" and many.pop("profiles_flag") == "--profiles"
    assert one == many


@pytest.mark.parametrize("command", COMMANDS)
def test_color_is_auto_unless_told(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _parse([command, *POSITIONALS[command]]).color == "auto"
    with pytest.raises(SystemExit):
        _parse([command, *POSITIONALS[command], "--color", "sometimes"])
    assert "invalid choice" in capsys.readouterr().err


def test_graph_and_check_keep_their_positional_root_beside_root() -> None:
    assert _parse(["graph", "some/dir"]).positional_root == "some/dir"
    assert _parse(["graph", "--root", "some/dir"]).root == "some/dir"
    assert _parse(["check", "a", "b"]).check_paths == ["a", "b"]


# --- through the commands ------------------------------------------------------------------

@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_tree(tmp_path, {
        "AGENTS.md": "# Project\n\nUse tabs.\n\nSee @docs/missing.md\n",
        "CLAUDE.md": "@AGENTS.md\n\nRun the tests.\n",
        "GEMINI.md": "# Gemini\n\nPrefer small diffs.\n",
        "docs/style.md": "Wrap at 100.\n",
        "src/app.ts": "export {}\n",
    })


# each command's arguments over `repo`, run end to end
RUNS: dict[str, list[str]] = {
    "check": ["check"], "explain": ["explain", "src/app.ts"],
    "compare": ["compare", "src/app.ts"], "reach": ["reach", "AGENTS.md"],
    "why": ["why", "Use tabs"], "session": ["session", "read:src/app.ts"],
    "graph": ["graph"], "rule": ["rule", "broken-import"],
}


@pytest.mark.parametrize("command", sorted(RUNS))
def test_json_and_format_json_print_the_same(cli: RunCli, repo: Path, command: str) -> None:
    code, out, _ = cli([*RUNS[command], "--json"], repo)
    again, same, _ = cli([*RUNS[command], "--format", "json"], repo)
    assert code == again and code in (0, 1)
    assert json.loads(out) == json.loads(same)


@pytest.mark.parametrize("command", [c for c in sorted(RUNS) if c != "rule"])
def test_profile_and_profiles_of_one_agent_print_the_same(
    cli: RunCli, repo: Path, command: str
) -> None:
    fmt = [] if command == "graph" else ["--format", "json"]
    code, out, _ = cli([*RUNS[command], *fmt, "--profile", "gemini"], repo)
    again, same, _ = cli([*RUNS[command], *fmt, "--profiles", "gemini"], repo)
    assert code == again and code in (0, 1)
    assert json.loads(out) == json.loads(same)


def test_root_is_taken_by_every_command_from_anywhere(cli: RunCli, repo: Path,
                                                      tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command, args in RUNS.items():
        if command == "rule":
            continue
        args = [args[0], *(str(repo / a) if (repo / a).exists() and a != "Use tabs" else a
                           for a in args[1:])]
        if command == "session":
            args = ["session", f"read:{repo / 'src/app.ts'}"]
        code, out, err = cli([*args, "--root", str(repo), "--format", "json"], elsewhere)
        assert code in (0, 1), (command, err)
        assert out.strip(), command


def test_profiles_all_selects_every_agent(cli: RunCli, repo: Path) -> None:
    code, out, err = cli(["compare", "src/app.ts", "--profiles", "all", "--json"], repo)
    assert code == 0, err
    assert [c["profile"] for c in json.loads(out)["columns"]] == list(agent_names())


def test_one_agent_commands_answer_for_the_first_and_say_so(cli: RunCli, repo: Path) -> None:
    code, out, err = cli(["explain", "src/app.ts", "--profiles", "gemini,claude-code",
                          "--json"], repo)
    assert code == 0
    assert json.loads(out)["profile"] == "gemini"
    assert "explain answers for one agent: gemini" in err


def test_text_and_format_json_together_are_a_usage_error(cli: RunCli, repo: Path) -> None:
    code, out, err = cli(["explain", "--text", "--format", "json"], repo)
    assert (code, out) == (2, "") and "--text" in err


# --- did you mean ---------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "hint"), [
    (["chek"], "did you mean `check`?"),
    (["expalin"], "did you mean `explain`?"),
    (["check", "--profle", "x"], "did you mean `--profile`?"),
    (["check", "--exit-zeor"], "did you mean `--exit-zero`?"),
    (["check", "--format", "jsn"], "did you mean `json`?"),
    (["explain", "--colour", "never"], "did you mean `--color`?"),
])
def test_a_misspelt_command_option_or_choice_gets_the_closest(
    cli: RunCli, repo: Path, args: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        cli(args, repo)
    assert exit.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and hint in err


def test_did_you_mean_is_said_on_stderr(repo: Path) -> None:
    for args, hint in [(["chek"], "did you mean `check`?"),
                       (["check", "--profle", "x"], "did you mean `--profile`?"),
                       (["graph", "--format", "dto"], "did you mean `dot`?")]:
        done = _rulemap(args, repo)
        assert done.returncode == 2 and hint in done.stderr, done.stderr
        assert done.stdout == ""


@pytest.mark.parametrize("flag", ["--profiles", "--profile"])
def test_an_unknown_agent_gets_the_closest_name(cli: RunCli, repo: Path, flag: str) -> None:
    code, out, err = cli(["check", flag, "claude"], repo)
    assert (code, out) == (2, "")
    assert "unknown profile `claude`; did you mean `claude-code`?" in err
    assert "cogitator" in err  # every name is listed too


def test_an_agent_far_from_any_name_gets_the_list_only(cli: RunCli, repo: Path) -> None:
    code, _, err = cli(["compare", "--profiles", "zzzzzz"], repo)
    assert code == 2 and "did you mean" not in err and "available: cogitator" in err


# --- rulemap rule ---------------------------------------------------------------------------

def test_rule_prints_a_codes_documentation_from_the_registry(cli: RunCli, repo: Path) -> None:
    found = next(c for c in checks() if c.code == "broken-import")
    code, out, err = cli(["rule", "broken-import"], repo)
    assert (code, err) == (0, "")
    assert out.startswith(f"broken-import ({found.severity})\n")
    assert " ".join(found.summary.split()) in " ".join(out.split())
    assert found.url in out
    assert all(len(line) <= 80 and line == line.rstrip() for line in out.splitlines())


def test_rule_all_lists_every_code_and_json_holds_its_fields(cli: RunCli, repo: Path) -> None:
    code, out, _ = cli(["rule", "--all"], repo)
    assert code == 0
    for found in checks():
        assert f"\n{found.code} ({found.severity})\n" in f"\n{out}"
    code, out, _ = cli(["rule", "--all", "--format", "json"], repo)
    data = json.loads(out)
    assert [d["code"] for d in data] == [c.code for c in checks()]
    safe = next(d for d in data if d["code"] == "suspicious-import")
    assert safe["fix"] == "safe" and safe["agents"] == "every agent"
    code, out, _ = cli(["rule", "suspicious-import", "--json"], repo)
    assert json.loads(out) == safe


def test_an_unknown_code_is_exit_2_with_the_closest(cli: RunCli, repo: Path) -> None:
    code, out, err = cli(["rule", "brokn-import"], repo)
    assert (code, out) == (2, "")
    assert "unknown code `brokn-import`; did you mean `broken-import`?" in err
    code, out, err = cli(["rule"], repo)
    assert (code, out) == (2, "") and "--all" in err


# --- check PATH... and --exit-zero ----------------------------------------------------------

@pytest.fixture
def broken(tmp_path: Path) -> Path:
    return git_tree(tmp_path, {
        "AGENTS.md": "# P\n\nSee @docs/missing.md\n",
        "pkg/AGENTS.md": "See @gone.md\n",
        "docs/a.md": "plain\n",
    })


def _paths(out: str) -> set[str]:
    return {d["path"] for d in json.loads(out)["diagnostics"]}


def test_check_paths_limit_the_findings_not_the_workspace(cli: RunCli, broken: Path) -> None:
    code, out, _ = cli(["check", "--format", "json"], broken)
    assert code == 1 and _paths(out) == {"AGENTS.md", "pkg/AGENTS.md"}
    code, out, _ = cli(["check", "pkg/AGENTS.md", "--format", "json"], broken)
    assert code == 1 and _paths(out) == {"pkg/AGENTS.md"}
    code, out, _ = cli(["check", "pkg", "docs/a.md", "--format", "json"], broken)
    assert code == 1 and _paths(out) == {"pkg/AGENTS.md"}
    # a clean file: nothing to report, exit 0, though the workspace has errors
    code, out, _ = cli(["check", "docs/a.md", "--format", "json"], broken)
    assert code == 0 and _paths(out) == set()
    # from a subdirectory, PATH is relative to it and the root is still found
    code, out, _ = cli(["check", "AGENTS.md", "--format", "json", "--root", str(broken)],
                       broken / "pkg")
    assert code == 1 and _paths(out) == {"pkg/AGENTS.md"}


def test_one_directory_is_the_root_as_before(cli: RunCli, broken: Path) -> None:
    code, out, _ = cli(["check", "pkg", "--format", "json"], broken)
    assert code == 1 and _paths(out) == {"AGENTS.md"}  # pkg is the workspace now


def test_a_path_outside_the_root_or_missing_is_a_usage_error(
    cli: RunCli, broken: Path, tmp_path: Path
) -> None:
    code, out, err = cli(["check", "nope.md", "AGENTS.md"], broken)
    assert (code, out) == (2, "") and "nope.md: no such file or directory" in err
    outside = tmp_path / "outside.md"
    outside.write_text("x\n")
    code, out, err = cli(["check", str(outside), "--root", str(broken)], broken)
    assert (code, out) == (2, "") and f"{outside} is outside the workspace root" in err


def test_exit_zero(cli: RunCli, broken: Path) -> None:
    code, out, _ = cli(["check", "--exit-zero"], broken)
    assert code == 0 and "broken-import" in out
    code, _, _ = cli(["check", "--exit-zero", "--statistics"], broken)
    assert code == 0
    code, _, err = cli(["check", "--exit-zero", "--profiles", "nobody"], broken)
    assert code == 2  # a usage error is still one


def _rulemap(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("RULEMAP_CONFIG", "COLUMNS", "NO_COLOR", "FORCE_COLOR",
                            "RULEMAP_NO_CACHE")}
    environ.update(PYTHONPATH=str(REPO / "server"), XDG_CONFIG_HOME=str(cwd / ".no-config"),
                   **env)
    return subprocess.run([sys.executable, "-m", "rulemap", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_result_cache_never_replays_another_paths_or_exit_codes_answer(
    broken: Path, tmp_path: Path
) -> None:
    cache = str(tmp_path / "cache")
    runs = [["check"], ["check", "pkg/AGENTS.md"], ["check", "--exit-zero"],
            ["check", "docs/a.md"], ["check", "pkg/AGENTS.md", "--exit-zero"]]
    first = {}
    for args in runs:  # cold
        done = _rulemap([*args, "--format", "json"], broken, RULEMAP_CACHE_DIR=cache)
        first[tuple(args)] = (done.returncode, _paths(done.stdout))
    assert first[("check",)] == (1, {"AGENTS.md", "pkg/AGENTS.md"})
    assert first[("check", "pkg/AGENTS.md")] == (1, {"pkg/AGENTS.md"})
    assert first[("check", "--exit-zero")] == (0, {"AGENTS.md", "pkg/AGENTS.md"})
    assert first[("check", "docs/a.md")] == (0, set())
    assert first[("check", "pkg/AGENTS.md", "--exit-zero")] == (0, {"pkg/AGENTS.md"})
    for args in reversed(runs):  # warm: each its own answer
        done = _rulemap([*args, "--format", "json"], broken, RULEMAP_CACHE_DIR=cache)
        assert (done.returncode, _paths(done.stdout)) == first[tuple(args)], args


# --- no silent success ----------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["reach", "nope.md"], ["session", "read:src/nope.ts"], ["explain", "--cwd", "nope"],
    ["compare", "--cwd", "nope"], ["why", "Use tabs", "--cwd", "nope"],
])
def test_a_missing_path_is_a_usage_error_naming_it(
    cli: RunCli, repo: Path, args: list[str]
) -> None:
    code, out, err = cli(args, repo)
    assert (code, out) == (2, "")
    assert "nope" in err and "no such file" in err


@pytest.mark.parametrize("args", [
    ["explain", "src/new.ts"], ["compare", "src/new.ts"], ["why", "Use tabs", "src/new.ts"],
])
def test_a_missing_target_is_answered_but_said_to_be_missing(
    cli: RunCli, repo: Path, args: list[str]
) -> None:
    """What an agent gets once it creates the file (an edit may create it: conformance
    case `target-need-not-exist`), never silently."""
    code, out, err = cli([*args, "--format", "json"], repo)
    assert code in (0, 1) and json.loads(out)  # `why`: 1 when an agent does not get it
    assert "TARGET src/new.ts does not exist in the workspace" in err
    assert "once it creates it" in err
    again, _, err = cli([*args[:-1], "src/app.ts", "--format", "json"], repo)
    assert again == code and "does not exist" not in err


@pytest.mark.parametrize("command", ["explain", "compare", "reach"])
def test_a_target_outside_the_root_is_a_usage_error(
    cli: RunCli, repo: Path, tmp_path: Path, command: str
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("x\n")
    code, out, err = cli([command, str(outside)], repo)
    assert (code, out) == (2, "") and "outside the workspace root" in err


def test_a_workspace_without_instruction_files_says_so(cli: RunCli, tmp_path: Path) -> None:
    empty = git_tree(tmp_path, {"README.md": "# Nothing for agents\n"})
    code, _, err = cli(["check"], empty)
    assert code == 0
    assert "no instruction file of the selected agents (cogitator)" in err
    assert "AGENTS.md" in err and "CLAUDE.md" in err  # the names it reads
    code, _, err = cli(["check", "--profiles", "gemini"], empty)
    assert "(gemini)" in err and "GEMINI.md" in err
    assert all(len(line) <= 80 for line in err.splitlines())


def test_a_workspace_with_an_instruction_file_says_nothing_of_it(
    cli: RunCli, tmp_path: Path
) -> None:
    root = git_tree(tmp_path, {"GEMINI.md": "# G\n\nUse tabs.\n"})
    code, _, err = cli(["check", "--profiles", "gemini"], root)
    assert (code, err) == (0, "")
    code, _, err = cli(["check", "--profiles", "cogitator"], root)
    assert "no instruction file of the selected agents (cogitator)" in err


def test_lowercase_instruction_files_are_named_on_linux_and_read_on_macos(
    cli: RunCli, tmp_path: Path
) -> None:
    """Issue #39 item 4: `agents.md` and `claude.md` alone are no longer "no findings in 0
    files" on Linux, and on macOS (or Windows) the agents that open their files by name read
    them; every JSON answer says which platform it assumed."""
    root = git_tree(tmp_path, {"agents.md": "# A\n\nUse tabs.\n",
                               "claude.md": "# C\n\nRun make.\n"})
    code, out, err = cli(["check", "--format", "json", "--platform", "linux"], root)
    data = json.loads(out)
    assert data["platform"] == "linux"
    assert sorted((d["path"], d["code"], d["severity"]) for d in data["diagnostics"]) == [
        ("agents.md", "name-case", "warning"), ("claude.md", "name-case", "warning")]
    assert err == ""  # the report is not empty: its findings name the files and the fix
    # with `name-case` off, the note of a workspace without instruction files names them
    (root / "rulemap.toml").write_text('[severity]\nname-case = "off"\n')
    code, out, err = cli(["check", "--platform", "linux", "--no-cache"], root)
    assert "no instruction file of the selected agents (cogitator)" in err
    assert "`agents.md` (`AGENTS.md`)" in err and "not on Linux" in err
    (root / "rulemap.toml").unlink()
    code, out, err = cli(["check", "--format", "json", "--platform", "macos"], root)
    data = json.loads(out)
    assert data["platform"] == "macos" and err == ""
    assert [c["name"] for c in data["selection"]] == ["cogitator", "claude-code", "codex"]
    assert {d["severity"] for d in data["diagnostics"] if d["code"] == "name-case"} == {
        "information"}
    for command in (["explain"], ["reach", "agents.md"], ["why", "Use tabs"], ["compare"]):
        code, out, _ = cli([*command, "--json", "--platform", "windows"], root)
        assert json.loads(out)["platform"] == "windows", command
    code, out, _ = cli(["reach", "agents.md", "--json", "--platform", "macos"], root)
    agents = {a["profile"]: a for a in json.loads(out)["agents"]}
    assert agents["codex"]["seen"] == 2 and agents["codex"]["never"] is None
    code, out, _ = cli(["reach", "agents.md", "--json", "--platform", "linux",
                        "--profiles", "codex"], root)
    codex = {a["profile"]: a for a in json.loads(out)["agents"]}["codex"]
    # in check's words (name-case): why it misses the file, and the rename
    assert codex["seen"] == 0 and "`agents.md` is not read on Linux" in codex["never"]
    assert "rename it to `AGENTS.md`" in codex["never"]


def test_platform_comes_from_the_configuration_unless_given(
    cli: RunCli, tmp_path: Path
) -> None:
    root = git_tree(tmp_path, {"agents.md": "# A\n\nUse tabs.\n",
                               "rulemap.toml": 'platform = "macos"\n'})
    code, out, _ = cli(["explain", "--json", "--profile", "codex"], root)
    data = json.loads(out)
    assert data["platform"] == "macos" and [f["path"] for f in data["files"]] == ["agents.md"]
    code, out, _ = cli(["explain", "--json", "--profile", "codex", "--platform", "linux"], root)
    data = json.loads(out)
    assert data["platform"] == "linux" and data["files"] == []


def test_a_bad_platform_is_refused_with_the_closest(
    cli: RunCli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = git_tree(tmp_path, {"AGENTS.md": "# A\n",
                               "rulemap.toml": 'platform = "darwin"\n'})
    code, _, err = cli(["check"], root)
    assert code == 2
    assert "`platform` must be one of linux, macos, windows" in err
    assert "did you mean `macos`?" in err
    with pytest.raises(SystemExit) as exit:
        cli(["check", "--platform", "mac"], root)
    assert exit.value.code == 2
    assert "--platform: invalid choice: 'mac'" in capsys.readouterr().err


def test_map_says_what_it_wrote_as_json_too(cli: RunCli, repo: Path) -> None:
    code, out, _ = cli(["map", "--html", "map.html", "--format", "json"], repo)
    assert code == 0
    data = json.loads(out)
    assert Path(data["written"]).name == "map.html" and (repo / "map.html").exists()
    assert data["bytes"] == (repo / "map.html").stat().st_size


def test_graph_refuses_two_different_roots(cli: RunCli, repo: Path, tmp_path: Path) -> None:
    code, out, err = cli(["graph", str(repo), "--root", str(tmp_path)], repo)
    assert (code, out) == (2, "") and "two roots" in err
    code, out, _ = cli(["graph", str(repo), "--root", str(repo)], repo)
    assert code == 0 and json.loads(out)


def test_check_fix_with_paths_fixes_only_those_files(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, {
        "AGENTS.md": "# P\n\nSee @docs/a.md.\n",
        "pkg/AGENTS.md": "See @../docs/a.md.\n",
        "docs/a.md": "plain\n",
    })
    code, _, err = cli(["check", "pkg/AGENTS.md", "--fix"], root)
    assert code == 0, err
    assert (root / "pkg/AGENTS.md").read_text() == "See @../docs/a.md\n"
    assert (root / "AGENTS.md").read_text() == "# P\n\nSee @docs/a.md.\n"  # not a PATH


def test_check_cwd_is_the_agents_working_directory(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, {
        "AGENTS.md": "# P\n\nUse tabs.\n",
        "pkg/.claude/rules/r.md": "Validate input.\n",
    })
    code, out, _ = cli(["check", "--format", "json"], root)
    codes = {d["code"] for d in json.loads(out)["diagnostics"]}
    assert "unreachable-rule" in codes  # below the root's cwd: it never loads
    code, out, err = cli(["check", "--format", "json", "--cwd", "pkg"], root)
    assert code == 0, err
    assert "unreachable-rule" not in {d["code"] for d in json.loads(out)["diagnostics"]}
    code, out, err = cli(["check", "--cwd", "nope"], root)
    assert (code, out) == (2, "") and "--cwd nope: no such directory" in err
    code, out, err = cli(["check", "--cwd", str(tmp_path)], root)
    assert (code, out) == (2, "") and "outside the workspace root" in err
