"""Fixtures shared by the core tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli_runner import RunCli, in_process_cli

__all__ = ["RunCli"]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> RunCli:
    """Runs `rulemap ARGS` in-process from `cwd` with no user configuration file:
    (exit code, stdout, stderr)."""
    return in_process_cli(monkeypatch, capsys, tmp_path)
