"""A cloned repository cannot drive the user's terminal: control characters in its file names
and instruction text (OSC 0 sets the window title, OSC 52 writes the clipboard, `ESC[2J`
clears the screen, U+009B is a one-byte CSI, `ESC[8m` hides what follows, U+202E reverses
it) come out of every text output escaped (`\\x1b`, `\\u009b`), and out of JSON and SARIF
exact: the same strings, every control character as a `\\uXXXX` escape of the encoder
(docs/security.md, "Repository text never drives your terminal")."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TIME_LIMIT = 60

TITLE = "\x1b]0;pwned-title\x07"  # OSC 0: the window title
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52: the clipboard
CLEAR = "\x1b[2J"  # erase the screen
CSI = "\x9b31m"  # the one-byte CSI of C1
CONCEAL = "\x1b[8m"  # SGR 8: what follows is invisible
REVERSE = "\u202e"  # right-to-left override ("Trojan Source")
BACKSPACE = "ok\x08\x08no"
HOSTILE = (TITLE, CLIPBOARD, CLEAR, CSI, CONCEAL, REVERSE, BACKSPACE)
# a file name: no "/" or NUL, but anything else goes
NAME = f"n{TITLE}{CSI}{REVERSE}.md"
DIRECTORY = f"pkg{CLEAR}"

# what may reach a terminal raw: printable text, tab, newline, CR before LF
RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def _lay_out(root: Path) -> None:
    files = {
        "AGENTS.md": (
            f"# Root {TITLE}\n\n"
            f"Keep it short {CLIPBOARD} and {CLEAR} kind {CSI} and {CONCEAL}hidden{REVERSE}.\n\n"
            f"See @docs/{NAME} and @docs/missing{TITLE}.md and @{DIRECTORY}/AGENTS.md\n\n"
            f"Run `npm run lint{CLEAR}` before committing.\n\n"
            f"Again {TITLE}: @docs/other{TITLE}.md.\n"  # suspicious: `--fix` drops the dot
        ),
        f"docs/{NAME}": f"Imported {BACKSPACE} text {TITLE}.\n",
        f"docs/other{TITLE}.md": "Other.\n",
        f"{DIRECTORY}/AGENTS.md": f"Nested {CSI} rules.\n",
        f"{DIRECTORY}/src/app{TITLE}.ts": "export {}\n",
        f".claude/rules/r{CSI}.md": (
            f"---\npaths: [\"nowhere{TITLE}/**\"]\n---\nScoped {CLIPBOARD} rule.\n"
        ),
        "CLAUDE.md": f"@AGENTS.md\n\nClaude {CONCEAL}only{REVERSE}.\n",
        "package.json": '{"scripts": {"test": "x"}}\n',
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("terminal") / "repo"
    root.mkdir()
    _lay_out(root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(root), "commit", "-qm", "one"], check=True)
    # a second state for `diff`: an edit that brings more hostile text
    agents = root / "AGENTS.md"
    agents.write_text(agents.read_text(encoding="utf-8") + f"\nMore {TITLE}{CSI}.\n",
                      encoding="utf-8")
    yield root


def run(repo: Path, *args: str, color: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "HOME": str(repo.parent),
           "RULEMAP_NO_CACHE": "1", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    if color:  # rich styles its tables as on a terminal
        env["FORCE_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "rulemap", *args], capture_output=True, text=True,
        encoding="utf-8", errors="surrogateescape", timeout=TIME_LIMIT, cwd=repo, env=env,
    )


def assert_escaped(proc: subprocess.CompletedProcess[str], color: bool = False) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    for stream in (proc.stdout, proc.stderr):
        shown = stream
        if color:  # rich's own styles, and nothing else, may be SGR sequences
            shown = re.sub("\x1b\\[[0-9;]*m", "", stream)
            for sequence in HOSTILE:
                assert sequence not in stream
        raw = sorted({m.group() for m in RAW_CONTROL.finditer(shown)})
        assert raw == [], f"raw control characters {raw!r} in:\n{stream[:3000]!r}"


TARGET = f"{DIRECTORY}/src/app{TITLE}.ts"
RULE = f".claude/rules/r{CSI}.md"

TEXT_COMMANDS = {
    "check-text": ["check", ".", "--format", "text"],
    "check-github": ["check", ".", "--format", "github"],
    "check-statistics": ["check", ".", "--statistics"],
    "explain": ["explain", TARGET, "--root", "."],
    "explain-claude": ["explain", TARGET, "--root", ".", "--profile", "claude-code"],
    "compare": ["compare", TARGET, "--root", ".", "--profiles", "cogitator,claude-code"],
    "reach-rule": ["reach", RULE, "--root", "."],
    "reach-import": ["reach", f"docs/{NAME}", "--root", "."],
    "why": ["why", "Keep it short", "--root", "."],
    "why-missing": ["why", f"nothing like this {TITLE}", "--root", "."],
    "graph-dot": ["graph", ".", "--format", "dot"],
    "graph-mermaid": ["graph", ".", "--format", "mermaid"],
    "diff-text": ["diff", "HEAD", "--root", "."],
    "diff-markdown": ["diff", "HEAD", "--root", ".", "--format", "markdown"],
    "explain-unknown-file": ["explain", f"nope{TITLE}.ts", "--root", "."],
    "reach-unknown-file": ["reach", f"nope{CSI}.md", "--root", "."],
}


@pytest.mark.parametrize("name", sorted(TEXT_COMMANDS))
def test_text_outputs_escape_every_control_character(repo: Path, name: str) -> None:
    proc = run(repo, *TEXT_COMMANDS[name])
    assert_escaped(proc)
    assert proc.returncode in (0, 1, 2), proc.stderr
    if proc.returncode != 2:
        assert proc.stdout.strip(), proc.stderr  # it printed its answer, escaped


@pytest.mark.parametrize("name", ["explain", "explain-claude", "compare", "reach-rule", "why",
                                  "check-text"])
def test_styled_tables_carry_only_their_own_styles(repo: Path, name: str) -> None:
    assert_escaped(run(repo, *TEXT_COMMANDS[name], color=True), color=True)


def test_the_escapes_name_the_characters(repo: Path) -> None:
    out = run(repo, "check", ".", "--format", "text").stdout
    # the missing import's name, as the user can read and search for it
    assert "missing\\x1b]0;pwned-title\\x07.md" in out
    out = run(repo, "explain", TARGET, "--root", ".").stdout
    assert "\\u009b" in out or "\\x1b" in out


# data that must be exact where it is piped (`git apply`, a prompt saved to a file) and is
# escaped where a person reads it, on a terminal
EXACT_COMMANDS = {
    "check-diff": ["check", ".", "--diff"],
    "explain-text": ["explain", TARGET, "--root", ".", "--text"],
}


def on_terminal(repo: Path, *args: str) -> str:
    """What `rulemap ARGS` shows on a (pseudo-)terminal."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "HOME": str(repo.parent),
           "RULEMAP_NO_CACHE": "1", "COLUMNS": "200", "TERM": "xterm"}
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rulemap", *args], cwd=repo, env=env,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    shown = bytearray()
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], TIME_LIMIT)
            if not ready:
                break
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end closed: the command exited
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
        proc.wait(timeout=TIME_LIMIT)
    return shown.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("name", sorted(EXACT_COMMANDS))
def test_exact_outputs_are_escaped_on_a_terminal(repo: Path, name: str) -> None:
    shown = on_terminal(repo, *EXACT_COMMANDS[name])
    assert "\\x1b]0;pwned-title\\x07" in shown, shown  # there, escaped
    # a terminal's own line ends (CR LF) and rich's styles are all that remain
    plain = re.sub("\x1b\\[[0-9;]*m", "", shown.replace("\r\n", "\n"))
    raw = sorted({m.group() for m in RAW_CONTROL.finditer(plain)})
    assert raw == [], raw
    for sequence in HOSTILE:
        assert sequence not in shown


@pytest.mark.parametrize("name", sorted(EXACT_COMMANDS))
def test_exact_outputs_are_exact_when_piped(repo: Path, name: str) -> None:
    proc = run(repo, *EXACT_COMMANDS[name])
    assert "Traceback" not in proc.stderr and proc.stdout, proc.stderr
    assert TITLE in proc.stdout  # the bytes as they are: a patch `git apply` takes
    assert_escaped(subprocess.CompletedProcess(proc.args, 0, "", proc.stderr))


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


JSON_COMMANDS = {
    "check-json": ["check", ".", "--format", "json"],
    "check-sarif": ["check", ".", "--format", "sarif"],
    "explain-json": ["explain", TARGET, "--root", ".", "--json"],
    "graph-json": ["graph", ".", "--format", "json"],
    "reach-json": ["reach", RULE, "--root", ".", "--json"],
    "why-json": ["why", "Keep it short", "--root", ".", "--json"],
    "diff-json": ["diff", "HEAD", "--root", ".", "--format", "json"],
    "compare-json": ["compare", TARGET, "--root", ".", "--json"],
}


@pytest.mark.parametrize("name", sorted(JSON_COMMANDS))
def test_json_outputs_stay_exact_and_raw_free(repo: Path, name: str) -> None:
    proc = run(repo, *JSON_COMMANDS[name])
    assert_escaped(proc)  # every control character as the encoder's \\uXXXX
    data = json.loads(proc.stdout)
    found = "\n".join(_strings(data))
    # exact: the names and text come back as the repository holds them
    if name in ("check-json", "check-sarif"):
        assert f"missing{TITLE}.md" in found
    if name in ("explain-json", "graph-json", "reach-json"):
        assert NAME in found or RULE in found or DIRECTORY in found
