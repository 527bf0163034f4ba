"""`rulemap check` in colour, as ruff (issue 36, item 3): `use_color`'s decision (`--color
auto|always|never`, NO_COLOR, FORCE_COLOR, a terminal), severity and code styled, the bytes
without colour unchanged, and a repository's own escape sequences still escaped."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulemap.cli.terminal import SGR, use_color

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"

# what the report's own styles are: nothing else may start with ESC
OWN_STYLE = re.compile("\x1b\\[(?:" + "|".join(re.escape(c) for c in SGR.values()) + "|0)m")


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("choice", "env", "tty", "expected"),
    [
        ("always", {"NO_COLOR": "1"}, False, True),
        ("never", {"FORCE_COLOR": "1"}, True, False),
        ("auto", {}, True, True),
        (None, {}, True, True),
        ("auto", {}, False, False),
        ("auto", {"NO_COLOR": "1"}, True, False),
        ("auto", {"NO_COLOR": ""}, True, True),  # empty: unset (no-color.org)
        ("auto", {"FORCE_COLOR": "1"}, False, True),
        ("auto", {"FORCE_COLOR": ""}, False, False),
        ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),  # NO_COLOR wins
        ("auto", {"TERM": "dumb"}, True, False),
    ],
)
def test_use_color_decides_as_ruff(
    monkeypatch: pytest.MonkeyPatch, choice: str | None, env: dict[str, str], tty: bool,
    expected: bool,
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert use_color(choice, Stream(tty)) is expected


def check(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("RULEMAP_CONFIG", "COLUMNS", "NO_COLOR", "FORCE_COLOR")}
    clean.update(XDG_CONFIG_HOME=str(root / ".no-user-config"), RULEMAP_NO_CACHE="1", **env)
    return subprocess.run(
        [sys.executable, "-m", "rulemap", "check", str(root), *args], cwd=root, env=clean,
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_piped_and_no_color_print_the_same_bytes_as_plain_text() -> None:
    plain = check(DEMO).stdout
    assert "\x1b" not in plain and plain.startswith(".claude/rules/cursor-style.md\n")
    assert check(DEMO, NO_COLOR="1", FORCE_COLOR="1").stdout == plain


def test_forced_colour_styles_severity_code_and_path() -> None:
    plain = check(DEMO).stdout
    colored = check(DEMO, FORCE_COLOR="1").stdout
    assert OWN_STYLE.sub("", colored) == plain  # the same text, only styled
    assert "\x1b[1m.claude/rules/cursor-style.md\x1b[0m\n" in colored  # the path bold
    assert "\x1b[31merror\x1b[0m" in colored and "\x1b[33mwarning\x1b[0m" in colored
    assert "\x1b[34minformation\x1b[0m" in colored
    assert "\x1b[1mbroken-import\x1b[0m" in colored  # the code bold
    statistics = check(DEMO, "--statistics", FORCE_COLOR="1").stdout
    assert "\x1b[1mbroken-import\x1b[0m" in statistics
    assert OWN_STYLE.sub("", statistics) == check(DEMO, "--statistics").stdout


def test_a_clean_workspace_passes_in_green(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("fine\n", encoding="utf-8")
    # after the agents line: which agents the check was for
    agents, summary = check(tmp_path, FORCE_COLOR="1").stdout.splitlines()[:2]
    assert agents.startswith("agents: cogitator (the default model)")
    assert summary.startswith("\x1b[32mAll checks passed\x1b[0m")


# a repository's own sequences: ones the report never writes itself (blink, clear screen, the
# window title) and one it does (red), which must still not pass as the report's
BLINK, CLEAR, TITLE, RED = "\x1b[5m", "\x1b[2J", "\x1b]0;owned\x07", "\x1b[31m"


def test_repository_text_cannot_style_the_coloured_report(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    rules = tmp_path / ".claude" / "rules"
    rules.mkdir(parents=True)
    # a rule whose glob matches nothing: its path heads a group of the report
    (rules / f"r{RED}{BLINK}.md").write_text(
        '---\npaths: ["nowhere/**"]\n---\nScoped.\n', encoding="utf-8"
    )
    (tmp_path / "AGENTS.md").write_text(
        f"@missing{TITLE}{RED}.md\n\n@gone{CLEAR}.md\n", encoding="utf-8"
    )
    for env in ({"FORCE_COLOR": "1"}, {}):
        out = check(tmp_path, **env).stdout
        assert "broken-import" in out, out
        for sequence in (BLINK, CLEAR, TITLE):
            assert sequence not in out
        # the repository's red is shown as text, never as a style
        assert "\\x1b[31m" in out and "\\x1b[5m" in out and "\\x1b]0;owned\\x07" in out
        assert "\\x1b[2J" in out
        rest = OWN_STYLE.sub("", out)
        assert "\x1b" not in rest, rest
        if env:
            # every style is the report's own: the only red is the severity's
            assert out.count(RED) == out.count(f"{RED}error\x1b[0m")


def rulemap(*args: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("RULEMAP_CONFIG", "NO_COLOR", "FORCE_COLOR")}
    clean.update(RULEMAP_NO_CACHE="1", COLUMNS="100", **env)
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args], cwd=DEMO, env=clean, capture_output=True,
        text=True, timeout=60, check=True,
    ).stdout


@pytest.mark.parametrize("command", [["explain", "packages/api/src/handlers/users.ts"],
                                     ["compare", "packages/api/src/handlers/users.ts"]])
def test_the_tables_follow_the_same_decision(command: list[str]) -> None:
    """rich's tables: styled when the decision is yes, with no style at all when no."""
    plain = rulemap(*command)
    assert "\x1b" not in plain
    assert "\x1b[" in rulemap(*command, FORCE_COLOR="1")
    assert rulemap(*command, FORCE_COLOR="1", NO_COLOR="1") == plain


def test_the_result_cache_keeps_coloured_and_plain_reports_apart(tmp_path: Path) -> None:
    """A coloured report cached is never replayed to a pipe, nor a plain one in colour."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items()
           if k not in ("RULEMAP_CONFIG", "COLUMNS", "NO_COLOR", "FORCE_COLOR",
                        "RULEMAP_NO_CACHE")}
    env.update(RULEMAP_CACHE_DIR=str(cache), XDG_CONFIG_HOME=str(tmp_path / "config"))

    def run(**extra: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "rulemap", "check", str(DEMO)], cwd=DEMO,
            env={**env, **extra}, capture_output=True, text=True, timeout=60, check=False,
        ).stdout

    for _ in range(2):  # the second round from the cache
        assert "\x1b[31merror" in run(FORCE_COLOR="1")
        assert "\x1b" not in run()
    assert len(list(cache.iterdir())) >= 2
