"""Every `rulemap --help` and `rulemap COMMAND --help` reads at 80 columns, in a terminal of
80 columns or wider: no line over 80, no trailing space, and no word (an option's name, a
path) broken mid-token — the help's words are those of the same help printed unwrapped."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from rulemap.cli import usage
from rulemap.cli.main import COMMAND_HELP, main

COMMANDS = [c for c in COMMAND_HELP if c != "serve"]  # serve's help is the server's own


def _help(args: list[str], monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str], columns: int) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit:
        main([*args, "--help"])
    assert exit.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_reads_at_80_columns(
    command: str | None, columns: int, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [command] if command else []
    text = _help(args, monkeypatch, capsys, columns)
    assert text.startswith("usage: rulemap")
    for line in text.splitlines():
        assert len(line) <= 80, line
        assert line == line.rstrip(), repr(line)
    # unwrapped: one line per paragraph, option and usage; the same words in the same order
    monkeypatch.setattr(usage, "MAX_HELP_WIDTH", 100_000)
    wide = _help(args, monkeypatch, capsys, 100_000)
    assert max(len(line) for line in wide.splitlines()) > 80  # it was unwrapped
    assert text.split() == wide.split()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_message_wraps_on_a_terminal_and_stays_whole_when_piped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    message = ("rulemap: --profiles: unknown profile `claude`; did you mean `claude-code`? "
               "Available: cogitator, mastra, claude-code, codex, gemini, copilot, cursor")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert usage.for_stderr(message) == message  # piped: one line, whole for a grep
    monkeypatch.setattr(sys, "stderr", _Terminal())
    for columns, limit in (("60", 60), ("200", 80), ("0", 80)):
        monkeypatch.setenv("COLUMNS", columns)
        wrapped = usage.for_stderr(message)
        assert max(len(line) for line in wrapped.splitlines()) <= limit
        assert "\n" in wrapped and wrapped.split() == message.split()
