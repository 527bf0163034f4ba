"""`rulemap diff BASE [HEAD]` on real temporary git repositories: text, JSON, Markdown, exit
codes, the update path against two fresh workspaces; and the GitHub Action that runs it."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from git_repos import GIT_ENV, git, write

from rulemap.cli.diff_markdown import MARKER, render_markdown
from rulemap.cli.main import build_parser
from rulemap.diff import Change, Diff, Group, Where
from rulemap.diff.result import WORKTREE

REPO = Path(__file__).resolve().parents[2]
RULE = "---\npaths: ['{glob}']\n---\nReact components are function components.\n"
FILES = {
    "AGENTS.md": "# Root\nUse pnpm.\n",
    "packages/web/AGENTS.md": "# Web\n",
    **{f"packages/web/src/c{i}.tsx": "x\n" for i in range(6)},
    "packages/api/src/x.py": "x\n",
    ".claude/rules/react.md": RULE.format(glob="packages/api/**"),
}


def commit(repo: Path, files: dict[str, str | None]) -> None:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "c")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: FILES; HEAD (branch `feature`): the rule now matches the web package's .tsx files
    and packages/web/AGENTS.md imports a missing file."""
    path = tmp_path / "r"
    path.mkdir()
    git(path, "init", "-q")
    commit(path, dict(FILES))
    git(path, "checkout", "-q", "-b", "feature")
    commit(path, {".claude/rules/react.md": RULE.format(glob="packages/web/**/*.tsx"),
                  "packages/web/AGENTS.md": "# Web\nSee @missing.md\n"})
    return path


def test_text_names_the_groups_and_fits_80_columns(repo: Path, cli) -> None:
    code, out, err = cli(["diff", "main", "feature", "--profiles", "cogitator"], repo)
    assert code == 0, err
    assert out.startswith("rulemap diff main → feature (cogitator)\n")
    assert "cogitator: every file under packages/web/src/ (6)\n" in out
    assert "  + now also load .claude/rules/react.md\n" in out
    assert "cogitator: packages/api/src/x.py\n  - no longer load .claude/rules/react.md" in out
    assert "new: packages/web/AGENTS.md:2: error broken-import" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_json_and_fail_on_change(repo: Path, cli) -> None:
    code, out, _ = cli(["diff", "main", "feature", "--json", "--fail-on-change"], repo)
    assert code == 1
    data = json.loads(out)
    assert data["base"] == "main" and data["head"] == "feature" and data["changed"]
    gained = next(g for g in data["groups"]
                  if {"kind": "added", "path": ".claude/rules/react.md"} in g["changes"])
    assert gained["files"] == [f"packages/web/src/c{i}.tsx" for i in range(6)]
    assert gained["everyFileUnder"] and gained["under"] == "packages/web/src"
    assert [f["code"] for f in data["findings"]["new"]] == ["broken-import"]


def test_no_difference_is_said_plainly_and_exits_0(repo: Path, cli) -> None:
    code, out, _ = cli(["diff", "main", "main", "--fail-on-change"], repo)
    assert code == 0
    flat = " ".join(out.split())
    assert "No difference: cogitator, claude-code, codex load the same instructions for all " \
           "10 files and at start-up" in flat
    code, md, _ = cli(["diff", "main", "main", "--format", "markdown"], repo)
    assert md.startswith(MARKER + "\n") and "No difference:" in md


def test_head_omitted_is_the_working_tree(repo: Path, cli) -> None:
    write(repo, {"packages/api/AGENTS.md": "# API\n"})  # not committed
    code, out, _ = cli(["diff", "feature", "--json"], repo)
    data = json.loads(out)
    assert data["head"] == "the working tree"
    api = [g for g in data["groups"] if {"kind": "added", "path": "packages/api/AGENTS.md"}
           in g["changes"]]
    assert api and "packages/api/src/x.py" in api[0]["files"]


def without_agents(out: str) -> dict[str, object]:
    """`rulemap diff --json`'s answer without its `agents` (which the CLI adds: the selection,
    each agent with why)."""
    data = json.loads(out)
    assert [a["name"] for a in data.pop("selection")] == data["profiles"]
    assert data.pop("platform") == "linux"  # the CLI's; tests/conftest.py pins Linux
    return data  # type: ignore[no-any-return]


def fresh(repo: Path, base: str, head: str | None) -> dict[str, object]:
    """The diff of two workspaces opened afresh (no update path), as JSON."""
    from rulemap.cli.commands import open_host
    from rulemap.diff import diff_workspaces
    from rulemap.host.snapshot import workspace_of

    a = workspace_of(open_host(str(repo), ref=base).snapshot())
    b = workspace_of(open_host(str(repo), ref=head).snapshot())
    return diff_workspaces(a, b, base_label=base, head_label=head or WORKTREE).to_json()


def test_update_path_equals_two_fresh_workspaces_on_a_branch_with_deletes(repo: Path,
                                                                           cli) -> None:
    commit(repo, {"packages/web/src/c0.tsx": None, "docs/new.md": "New\n",
                  "AGENTS.md": "# Root\nUse pnpm. @docs/new.md\n"})
    _, by_git, _ = cli(["diff", "main", "HEAD", "--json"], repo)
    assert without_agents(by_git) == fresh(repo, "main", "HEAD")
    data = json.loads(by_git)
    assert data["onlyBase"] == 1 and data["startupChanged"]
    # the working tree: the files BASE read compared byte for byte
    write(repo, {"packages/web/AGENTS.md": "# Web, edited\n", "packages/api/AGENTS.md": "A\n",
                 "docs/new.md": None})
    _, by_bytes, _ = cli(["diff", "main", "--json"], repo)
    assert without_agents(by_bytes) == fresh(repo, "main", None)
    assert json.loads(by_bytes)["onlyHead"] == 1


def test_a_bad_ref_is_a_usage_error_naming_it(repo: Path, cli) -> None:
    code, _, err = cli(["diff", "no-such-branch"], repo)
    assert code == 2 and "BASE no-such-branch: no such commit" in err and "Traceback" not in err
    code, _, err = cli(["diff", "main", "nope"], repo)
    assert code == 2 and "HEAD nope: no such commit" in err
    code, _, err = cli(["diff", "main", "--profiles", "nobody"], repo)
    assert code == 2 and "unknown profile `nobody`" in err


def test_a_shallow_clone_without_the_base_says_so(repo: Path, tmp_path: Path, cli) -> None:
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature",
                    f"file://{repo}", str(shallow)], check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV})
    code, _, err = cli(["diff", "main~0"], shallow)
    assert code == 2 and "BASE main~0" in err and "shallow clone" in err


def _group(n: int, files: int) -> Group:
    paths = tuple(f"packages/p{n}/src/f{i}.ts" for i in range(files))
    return Group(("cogitator",), (Change("added", f".claude/rules/r{n}.md"),), paths, False,
                 Where(files, f"packages/p{n}/src", True, ()))


def _diff(groups: int, files: int) -> Diff:
    made = tuple(_group(n, files) for n in range(groups))
    return Diff("main", "HEAD", ("cogitator",), groups * files, 0, 0, made, (), ())


def test_markdown_collapses_past_the_open_groups_and_stays_under_the_limit() -> None:
    small = render_markdown(_diff(12, 4))
    assert small.count("<details><summary>2 more change groups</summary>") == 1
    assert small.count("<details>") == small.count("</details>")
    assert "| cogitator | 48 | — |" in small
    big = render_markdown(_diff(3000, 60))
    assert len(big) <= 60_000
    assert re.search(r"… [\d,]+ more sections not shown", big)
    assert big.count("<details>") == big.count("</details>")
    assert "… 10 more (`rulemap diff --json` lists all)" in big  # 60 files, 50 listed
    tiny = render_markdown(_diff(5, 3), limit=1_000)
    assert len(tiny) <= 1_000 and "more section" in tiny


def _rulemap_invocations(script: str) -> list[list[str]]:
    """Each `rulemap …` command of a step's script, its shell variables given values."""
    values = {"$ROOT": ".", "$BASE_REF": "main", "$PROFILES": "cogitator,codex",
              '"$@"': "--profiles cogitator,codex"}
    found = []
    for line in script.splitlines():
        match = re.match(r"\s*rulemap\s+(.*)", line)
        if not match:
            continue
        command = re.split(r"\s[>|]", match.group(1))[0]
        for name, value in values.items():
            command = command.replace(name, value)
        found.append(shlex.split(command))
    return found


def test_the_action_runs_commands_the_cli_parses() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"profiles", "fail-on-change", "comment"}
    steps = action["runs"]["steps"]
    scripts = [s.get("run", "") for s in steps]
    assert any('pip install --quiet "$GITHUB_ACTION_PATH"' in s for s in scripts)
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    invocations = [cmd for s in scripts for cmd in _rulemap_invocations(s)]
    assert {cmd[0] for cmd in invocations} == {"check", "diff"}
    parser = build_parser()
    for cmd in invocations:
        args = parser.parse_args(cmd)  # exits (fails the test) on an unknown flag
        if args.command == "diff":
            assert args.format == "markdown" and args.base == "origin/main"
            assert args.head == "HEAD" and args.fail_on_change
        else:
            assert args.format == "sarif"
    # the comment step finds its old comment by the marker the Markdown starts with
    assert any(MARKER in s for s in scripts)


def _shown_output(text: str) -> str:
    """The output under `$ rulemap diff main` in a ```text block."""
    block = text.split("```text\n$ rulemap diff main\n", 1)[1]
    return block.split("```", 1)[0]


def test_the_readme_and_docs_example_is_the_real_output(tmp_path: Path, cli) -> None:
    import shutil

    demo = tmp_path / "demo"
    shutil.copytree(REPO / "examples" / "demo", demo)
    git(demo, "init", "-q")
    git(demo, "add", "-A")
    git(demo, "commit", "-q", "-m", "demo")
    rule = demo / ".claude" / "rules" / "api-handlers.md"
    rule.write_text(rule.read_text().replace(
        '"packages/api/src/**/*.ts"',
        '"packages/api/src/handlers/*.ts"\n  - "packages/web/src/main.ts"'))
    with (demo / "packages" / "web" / "AGENTS.md").open("a") as fh:
        fh.write("\nTests: see @../../docs/testing.md.\n")
    code, out, err = cli(["diff", "main"], demo)
    assert code == 0, err
    for doc in ("README.md", "docs/diff.md"):
        assert _shown_output((REPO / doc).read_text(encoding="utf-8")) == out, doc


def test_a_renamed_rule_and_a_symlink_fall_back_to_two_workspaces_alike(repo: Path,
                                                                        cli) -> None:
    git(repo, "mv", ".claude/rules/react.md", ".claude/rules/frontend.md")
    (repo / "packages" / "api" / "CLAUDE.md").symlink_to("../web/AGENTS.md")
    commit(repo, {})
    code, forward, err = cli(["diff", "HEAD~1", "HEAD", "--json"], repo)
    assert code == 0, err
    data = json.loads(forward)
    changes = {(c["kind"], c["path"]) for g in data["groups"] for c in g["changes"]}
    assert ("added", ".claude/rules/frontend.md") in changes
    assert ("removed", ".claude/rules/react.md") in changes
    # the symlink (a change git-diff-tree names as a link): two fresh workspaces, same answer
    assert without_agents(forward) == fresh(repo, "HEAD~1", "HEAD")
    _, worktree, _ = cli(["diff", "HEAD~1", "--json"], repo)
    assert without_agents(worktree) == fresh(repo, "HEAD~1", None)
    api = [g for g in data["groups"] if ("added", "packages/api/CLAUDE.md") in
           {(c["kind"], c["path"]) for c in g["changes"]}]
    assert api and api[0]["profiles"] == ["cogitator", "claude-code"]
    assert api[0]["files"] == ["packages/api/CLAUDE.md", "packages/api/src/x.py"]
    _, backward, _ = cli(["diff", "HEAD", "HEAD~1", "--json"], repo)
    back = {(c["kind"], c["path"]) for g in json.loads(backward)["groups"] for c in g["changes"]}
    assert ("removed", ".claude/rules/frontend.md") in back
    assert ("added", ".claude/rules/react.md") in back


def test_a_group_with_many_changes_lists_the_first_ones() -> None:
    changes = tuple(Change("removed", f"docs/d{i:02}.md") for i in range(30))
    group = Group(("claude-code",), changes, ("a/x.ts",) * 1, True, Where(1, "a", True, ()))
    d = Diff("main", "HEAD", ("claude-code",), 1, 0, 0, (group,), (), ())
    md = render_markdown(d)
    assert "`docs/d19.md`" in md and "`docs/d20.md`" not in md
    assert "- … 10 more changes (`rulemap diff --json`)" in md
    from rulemap.cli.diff import render_text

    text = render_text(d)
    assert "  … 10 more changes (--json lists all)" in text
    assert "claude-code: a/x.ts, and at start-up" in text


def _step_script(name: str) -> str:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    [step] = [s for s in action["runs"]["steps"] if s.get("name") == name]
    return str(step["run"])


@pytest.mark.parametrize("root,profiles", [("--fix", ""), (".", "--fix"),
                                           ("--diff", "cogitator")])
def test_action_inputs_are_values_never_options(tmp_path: Path, root: str, profiles: str) -> None:
    """The check step, run as the runner runs it (bash, inputs in the environment), with an
    input spelled like an option: nothing is rewritten, and the input is read as a value."""
    import shutil
    import sys

    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / "docs" / "a.md").write_text("a\n")
    (ws / "AGENTS.md").write_text("See @docs/a.md, then\n")  # --fix would rewrite this
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "rulemap").write_text(f"#!/bin/sh\nexec {sys.executable} -m rulemap \"$@\"\n")
    (bindir / "rulemap").chmod(0o755)
    env = dict(os.environ, ROOT=root, PROFILES=profiles,
               PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
               XDG_CONFIG_HOME=str(tmp_path / "none"))
    done = subprocess.run(["bash", "-e", "-c", _step_script("rulemap check (SARIF)")], cwd=ws,
                          env=env, capture_output=True, text=True, timeout=120)
    assert (ws / "AGENTS.md").read_text() == "See @docs/a.md, then\n"
    assert shutil.which("bash") and "Traceback" not in done.stderr
    if root.startswith("-"):
        assert done.returncode == 2 and f"{root}" in done.stderr  # "no such directory"
    else:
        assert done.returncode == 2 and "--fix" in done.stderr  # an unknown agent, named
