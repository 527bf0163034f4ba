"""Fixtures shared by the core tests."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import pytest

from rulemap.cli.main import main

RunCli = Callable[[list[str], Path], tuple[int, str, str]]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> RunCli:
    """Runs `rulemap ARGS` in-process from `cwd` with no user configuration file:
    (exit code, stdout, stderr)."""
    monkeypatch.delenv("RULEMAP_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))

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
