"""`.pre-commit-hooks.yaml`: each hook runs a command the CLI accepts, on the files it should."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rulemap.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]


def _hooks() -> list[dict[str, object]]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and hooks
    return hooks


def test_the_hook_checks_the_staged_files_it_is_given(tmp_path: Path):
    (hook,) = [h for h in _hooks() if h["id"] == "rulemap-check"]
    assert hook["language"] == "python"  # pre-commit pip-installs this repository
    # pre-commit appends the staged files it matched: `check PATH...` reports only theirs
    assert hook["pass_filenames"] is True
    argv = shlex.split(str(hook["entry"]))
    assert argv[0] == "rulemap"
    # the console script: rulemap/__main__.py, which hands every command but `serve` to the CLI
    assert 'rulemap = "rulemap.__main__:entry"' in (REPO / "pyproject.toml").read_text()
    args = build_parser().parse_args(argv[1:])
    assert args.command == "check" and not args.fix
    # the README's `args: [--fix]` makes a command the CLI accepts too
    assert build_parser().parse_args([*argv[1:], "--fix"]).fix
    # run as pre-commit runs it, from the repository's root with two staged files: a file
    # with a broken import fails the commit only when it is among them
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("# Project\n\nSee @docs/gone.md\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_text("fine\n", encoding="utf-8")
    run = [sys.executable, "-m", *argv, "--no-cache"]
    clean = subprocess.run([*run, "docs/ok.md"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120, env=_plain_env())
    assert clean.returncode == 0 and "broken-import" not in clean.stdout, clean
    broken = subprocess.run([*run, "docs/ok.md", "AGENTS.md"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env=_plain_env())
    assert broken.returncode == 1 and "broken-import" in broken.stdout, broken


def _plain_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    return {**env, "NO_COLOR": "1"}


@pytest.mark.parametrize(
    ("path", "runs"),
    [
        ("AGENTS.md", True),
        ("packages/web/CLAUDE.md", True),
        ("CLAUDE.local.md", True),
        (".claude/rules/frontend/components.md", True),
        (".cursor/rules/style.mdc", True),
        (".github/copilot-instructions.md", True),
        ("docs/conventions.md", True),  # imported files are Markdown
        ("rulemap.toml", True),
        ("pyproject.toml", True),
        ("src/app.ts", False),
        ("server/rulemap/cli/main.py", False),
        ("docs/AGENTS.md.bak", False),
    ],
)
def test_the_hook_runs_for_the_files_agents_load(path: str, runs: bool):
    (hook,) = [h for h in _hooks() if h["id"] == "rulemap-check"]
    # pre-commit matches `files` with re.search on the repository-relative path
    assert bool(re.search(str(hook["files"]), path)) is runs


def test_the_readme_example_names_the_hook():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    example = readme.split("```yaml\nrepos:", 1)[1].split("```", 1)[0]
    assert "repo: https://github.com/rulemap/rulemap" in example
    ids = re.findall(r"- id: (\S+)", example)
    assert ids and set(ids) <= {str(h["id"]) for h in _hooks()}
