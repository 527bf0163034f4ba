"""Fixtures of the toy agent's tests: the agent registered for one test (the registry restored
after it), the CLI run in-process, a workspace of TOY.txt files and real git repositories."""

from __future__ import annotations

import gc
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rulemap.profiles import PROFILES

RunCli = Callable[..., tuple[int, str, str]]

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
    for name, text in files.items():
        path = root / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
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
    from rulemap.cli.main import main

    monkeypatch.delenv("RULEMAP_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    monkeypatch.delenv("COLUMNS", raising=False)

    def run(args: list[str], cwd: Path) -> tuple[int, str, str]:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main(args)
        finally:
            gc.enable()  # main() turns the collector off for one-shot commands
        out, err = capsys.readouterr()
        return code, out, err

    return run


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


def commit(repo: Path, files: dict[str, str | None]) -> None:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "c")
