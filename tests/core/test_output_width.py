"""Every command's text output reads at 80 and 120 columns (issue 36, item 5): no line over
the width, no trailing space, no word broken mid-token.

Each command runs on examples/demo and on a workspace built here with long directory and file
names, at COLUMNS=80 and 120, and piped with no COLUMNS (rich's tables then take 80; `check`
keeps a finding on one line for grep, so only its other properties are held there). A word is
"broken" when a token of the narrow output is not a token of the same command's output at a
width where nothing needs to wrap: a path elided with `…` (`packages/…/AGENTS.md`) is a
shortening, not a break, and is accepted when what stands around the `…` comes from one
whole token; a file name shown alone for its path is whole too."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulemap.host.catalog import agent_names

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
WIDE = 1000  # a width where no line needs to wrap
WIDTHS = (80, 120)
ALL = ",".join(agent_names())

# what rich draws its tables with: not words
_BOX = re.compile("[\u2500-\u257f]+")
_COMPACT_NUMBER = re.compile(r"\d+(?:\.\d)?[kM]")


def run(root: Path, args: list[str], columns: int | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RULEMAP_CONFIG", "COLUMNS", "NO_COLOR", "FORCE_COLOR", "LINES")}
    env.update(XDG_CONFIG_HOME=str(root / ".no-user-config"), RULEMAP_NO_CACHE="1")
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args], cwd=root, env=env, capture_output=True,
        text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
    )


def tokens(text: str) -> list[str]:
    return [t for t in _BOX.sub(" ", text).split() if t]


def _elision_fits(token: str, whole: set[str]) -> bool:
    """`a…b` (or `…b`, `a…`, several `…`) stands for one whole token holding its pieces in
    order."""
    pieces = [p for p in token.split("…") if p]
    for candidate in whole:
        at = 0
        for piece in pieces:
            found = candidate.find(piece, at)
            if found < 0:
                break
            at = found + len(piece)
        else:
            return True
    return not pieces


def broken_words(narrow: str, wide: str) -> list[str]:
    whole = set(tokens(wide))
    # a file name alone where its path would not fit: whole names, not a break
    names = {t[t.rfind("/") + 1 :] for t in whole if "/" in t}
    return sorted({
        t for t in tokens(narrow)
        if t not in whole and t not in names and not _COMPACT_NUMBER.fullmatch(t)
        and not ("…" in t and _elision_fits(t, whole))
    })


def assert_reads_at(root: Path, args: list[str], width: int | None, one_line: bool = False
                    ) -> None:
    """`rulemap ARGS` at `width` (None: piped, no COLUMNS: 80 for the tables): every line
    within it, none ending in a blank, no word broken. `one_line`: piped `check`, whose
    findings stay one line each (no width to hold)."""
    narrow = run(root, args, width)
    assert narrow.returncode in (0, 1), narrow.stderr
    assert narrow.stdout.strip(), narrow.stderr
    for stream in (narrow.stdout, narrow.stderr):
        for line in stream.splitlines():
            assert line == line.rstrip(), f"trailing blanks in {args}: {line!r}"
            if not one_line:
                assert len(line) <= (width or 80), f"{args} at {width}: {len(line)}: {line!r}"
    wide = run(root, args, WIDE)
    broken = broken_words(narrow.stdout, wide.stdout)
    assert broken == [], f"{args} at {width} breaks words: {broken}\n{narrow.stdout}"


TARGET = "packages/api/src/handlers/users.ts"
DEMO_COMMANDS: dict[str, list[str]] = {
    "check": ["check", "."],
    "check-statistics": ["check", ".", "--statistics"],
    "explain": ["explain", TARGET, "--root", "."],
    "explain-start-up": ["explain", "--root", "."],
    "explain-claude": ["explain", TARGET, "--root", ".", "--profile", "claude-code"],
    "compare-all": ["compare", TARGET, "--root", ".", "--profiles", ALL],
    "compare-start-up-all": ["compare", "--root", ".", "--profiles", ALL],
    "compare": ["compare", TARGET, "--root", "."],
    "reach": ["reach", "docs/conventions.md", "--root", ".", "--profiles", ALL],
    "reach-line": ["reach", "AGENTS.md:3", "--root", "."],
    "why": ["why", "Express + Zod.", "--root", ".", "--profiles", ALL],
    "session": ["session", f"read:{TARGET}", "edit:packages/web/src/main.ts", "--root", "."],
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
         "-C", str(root), *args], check=True, capture_output=True,
    )


LONG_DIRECTORY = "packages/an-unusually-long-package-name/with-a-deep/source-directory"
LONG_NAME = "an-instruction-file-with-a-long-name-that-goes-on.md"


@pytest.fixture(scope="module")
def long_names(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git workspace whose paths are longer than a column of a narrow table: long
    directories, a long imported file name, a scoped rule, a broken import; a second commit
    changes the instructions (for `diff`)."""
    root = tmp_path_factory.mktemp("wide") / "repo"
    deep = root / LONG_DIRECTORY
    deep.mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "docs" / LONG_NAME).write_text("Prefer small pure functions.\n" * 20)
    (root / "AGENTS.md").write_text(
        f"# Root\n\nFollow @docs/{LONG_NAME} everywhere.\n\nSee @docs/missing-file.md too.\n"
    )
    (root / "CLAUDE.md").write_text("@AGENTS.md\n\nClaude only.\n")
    (root / "GEMINI.md").write_text("Gemini reads this file with a fairly long sentence.\n")
    (deep / "AGENTS.md").write_text(f"Nested rules. @../../../../docs/{LONG_NAME}\n")
    (deep / "component-with-a-long-name.ts").write_text("export {}\n")
    rules = root / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "a-scoped-rule-with-a-long-name.md").write_text(
        '---\npaths: ["packages/**/*.ts", "nowhere-at-all/**"]\n---\nTyped handlers.\n'
    )
    cursor = root / ".cursor" / "rules"
    cursor.mkdir(parents=True)
    (cursor / "cursor-rule-with-a-long-name.mdc").write_text(
        "---\nglobs: packages/**/*.ts\nalwaysApply: false\n---\nCursor rule.\n"
    )
    github = root / ".github"
    github.mkdir()
    (github / "copilot-instructions.md").write_text("Copilot instructions.\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    (root / "AGENTS.md").write_text((root / "AGENTS.md").read_text() + "\nOne more rule.\n")
    return root


LONG_TARGET = f"{LONG_DIRECTORY}/component-with-a-long-name.ts"
LONG_COMMANDS: dict[str, list[str]] = {
    "check": ["check", "."],
    "check-statistics": ["check", ".", "--statistics"],
    "explain": ["explain", LONG_TARGET],
    "explain-claude": ["explain", LONG_TARGET, "--profile", "claude-code"],
    "compare-all": ["compare", LONG_TARGET, "--profiles", ALL],
    "compare": ["compare", LONG_TARGET],
    "reach": ["reach", f"docs/{LONG_NAME}", "--profiles", ALL],
    "why": ["why", "Prefer small pure functions.", "--profiles", ALL],
    "session": ["session", f"read:{LONG_TARGET}", "edit:AGENTS.md"],
    "diff": ["diff", "HEAD", "--profiles", ALL],
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(DEMO_COMMANDS))
def test_demo_reads_at(name: str, width: int) -> None:
    assert_reads_at(DEMO, DEMO_COMMANDS[name], width)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(LONG_COMMANDS))
def test_long_names_read_at(long_names: Path, name: str, width: int) -> None:
    assert_reads_at(long_names, LONG_COMMANDS[name], width)


@pytest.mark.parametrize("name", ["compare-all", "explain", "check"])
def test_piped_without_columns(long_names: Path, name: str) -> None:
    """Piped with no $COLUMNS: the tables take 80 columns; `check` one line per finding."""
    assert_reads_at(long_names, LONG_COMMANDS[name], None, one_line=name == "check")


VERIFY_FIXTURES = REPO / "tests" / "verify" / "fixtures"
RECORDED_ROOT = "/home/dev/proj"  # where tests/verify/fixtures' logs were recorded


@pytest.fixture(scope="module")
def verify_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """tests/verify/fixtures' workspace and the logs recorded on it (agreeing and planted)."""
    root = tmp_path_factory.mktemp("verify") / "proj"
    shutil.copytree(VERIFY_FIXTURES / "workspace", root)
    (root / ".git").mkdir()
    logs = []
    for name in ("claude-code/planted.jsonl", "gemini/planted.jsonl", "codex/planted.json"):
        log = root.parent / name.replace("/", "-")
        text = (VERIFY_FIXTURES / name).read_text(encoding="utf-8")
        log.write_text(text.replace(RECORDED_ROOT, str(root)), encoding="utf-8")
        logs.append(str(log))
    return root, logs


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("index", [0, 1, 2])
def test_verify_reads_at(verify_project: tuple[Path, list[str]], index: int, width: int
                         ) -> None:
    root, logs = verify_project
    assert_reads_at(root, ["verify", logs[index]], width)


def test_the_word_check_sees_a_break() -> None:
    wide = "conventions.md 177\npackages/api/AGENTS.md 418\n"
    assert broken_words("conventions\n.md 177\npackages/…/AGENTS.md 418", wide) == [
        ".md", "conventions"
    ]
    assert broken_words("conv…ns.md 12.4k", wide) == []


def test_trim_and_wrap() -> None:
    from rulemap.cli.fitting import fit_token, trim, wrap

    # rich's padding after a style: the blanks go, the reset stays
    padded = "\x1b[1mname\x1b[0m   \x1b[2m  \x1b[0m\nplain   "
    assert trim(padded) == "\x1b[1mname\x1b[0m\nplain"
    long = "`" + "a/" * 40 + "CLAUDE.md`,"
    lines = wrap(f"create {long} containing it", 40)
    assert all(len(line) <= 40 for line in lines)
    shortened = next(t for line in lines for t in line.split() if "…" in t)
    assert shortened.startswith("`a/") and shortened.endswith("/CLAUDE.md`,")
    assert fit_token("short", 3) == "short"  # no room to shorten into: whole
