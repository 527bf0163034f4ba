"""`rulemap ARGS` run in-process for tests, the one way: from a directory, with no user
configuration file, stdout and stderr captured (tests/core and tests/toy_agent share it)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import pytest

RunCli = Callable[[list[str], Path], tuple[int, str, str]]


def in_process_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                   tmp_path: Path) -> RunCli:
    """A runner of `rulemap ARGS` from `cwd`: (exit code, stdout, stderr)."""
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


def git_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """`files` written under `tmp_path/repo`, a directory with `.git` (the root the CLI
    finds), for a command run there."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root
