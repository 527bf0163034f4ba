"""Fixtures of the toy agent's tests: the agent registered for one test (the registry restored
after it), the CLI run in-process, a workspace of TOY.txt files and real git repositories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli_runner import RunCli, in_process_cli
from tests.core.git_repos import git
from tests.core.git_repos import write as write_files

from rulemap.profiles import PROFILES

__all__ = ["FILES", "TARGET", "RunCli", "commit", "git", "write"]

# The toy agent's budget is 64 bytes shared, root first: TOY.txt (31 bytes) whole, src/TOY.txt
# (41 bytes) cut at 33 bytes, src/api/TOY.txt (15 bytes) left out. The default model
# (cogitator) loads AGENTS.md alone (9 characters of 32,000).
FILES = {
    "TOY.txt": "root toy rules: keep it short.\n",
    "src/TOY.txt": "src toy rules: tabs, not spaces, always.\n",
    "src/api/TOY.txt": "api toy rules.\n",
    "AGENTS.md": "Project.\n",
    "src/api/users.ts": "export const users = 1;\n",
}
TARGET = "src/api/users.ts"


def write(root: Path, files: dict[str, str | None]) -> Path:
    """`git_repos.write`, handing back `root`."""
    write_files(root, files)
    return root


@pytest.fixture
def toy() -> Iterator[object]:
    """The toy agent registered (its one registry line), the registry as it was afterwards."""
    from tests.toy_agent import register

    before = dict(PROFILES)
    agent = register()
    yield agent
    PROFILES.clear()
    PROFILES.update(before)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = write(tmp_path / "ws", dict(FILES))
    (root / ".git").mkdir()
    return root


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> RunCli:
    """`rulemap ARGS` in-process from `cwd` with no user configuration file:
    (exit code, stdout, stderr)."""
    return in_process_cli(monkeypatch, capsys, tmp_path)


def commit(repo: Path, files: dict[str, str | None]) -> None:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "c")
