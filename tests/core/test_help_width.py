"""The help's width: the terminal's as `shutil.get_terminal_size` tells it (without importing
shutil at every start), capped at 80 columns (`rulemap.cli.usage`)."""

from __future__ import annotations

import argparse
import shutil

import pytest

from rulemap.cli import usage


@pytest.mark.parametrize("columns", ["120", "50", "", "zero", "-3"])
def test_the_terminal_width_is_shutils(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert usage._terminal_columns() == shutil.get_terminal_size().columns


@pytest.mark.parametrize(("columns", "width"), [("200", 78), ("60", 58)])
def test_help_is_at_most_80_columns_and_narrower_on_a_narrow_terminal(
    columns: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    parser = argparse.ArgumentParser(prog="x", formatter_class=usage.HelpFormatter,
                                     description="word " * 60)
    lines = parser.format_help().splitlines()
    assert max(len(line) for line in lines) <= width
    assert max(len(line) for line in lines) >= width - 8  # filled, not narrower
