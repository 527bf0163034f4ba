"""Refresh the README's example output from the commands `make demo` runs on examples/demo.

    .venv/bin/python scripts/update_readme.py          rewrite the blocks in README.md
    .venv/bin/python scripts/update_readme.py --check  exit 1 (and say which) if one is stale

Each example is a fenced block between `<!-- demo:NAME -->` and `<!-- /demo -->`; only those
blocks are rewritten. The commands run from the repository root at 80 columns, with no user
configuration, exactly as `make demo` spells them (tests/core/test_readme.py holds both).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DEMO = "examples/demo"
WIDTH = 80

# name -> the arguments of `rulemap` (as the Makefile's demo target runs them)
EXAMPLES: dict[str, list[str]] = {
    "check": ["check", DEMO],
    "explain": ["explain", f"{DEMO}/packages/web/src/components/Button.tsx", "--root", DEMO],
    "reach": ["reach", f"{DEMO}/.claude/rules/frontend/components.md", "--root", DEMO],
    "why": ["why", "keep this file under 2,000 characters", "--root", DEMO],
}

_BLOCK = re.compile(r"(<!-- demo:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /demo -->)", re.S)


def output(args: list[str]) -> str:
    """What `rulemap ARGS` prints from the repository root, as a transcript."""
    with tempfile.TemporaryDirectory() as config_home:
        env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "FORCE_COLOR")}
        env.update(
            COLUMNS=str(WIDTH),
            XDG_CONFIG_HOME=config_home,
            NO_COLOR="1",
            PYTHONPATH=os.pathsep.join(
                p for p in (str(REPO / "server"), env.get("PYTHONPATH", "")) if p
            ),
        )
        proc = subprocess.run(
            [sys.executable, "-m", "rulemap", *args],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
        )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"rulemap {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    # as a terminal shows it: the messages (the agents line, a note) come before the result
    return normalize(f"{command_line(args)}\n{proc.stderr}{proc.stdout}")


def command_line(args: list[str]) -> str:
    """`$ rulemap ARGS`, its options on a continuation line when it passes the width."""
    line = f"$ rulemap {shlex.join(args)}"  # quoted as a shell needs it
    if len(line) <= WIDTH:
        return line
    first = next((i for i, a in enumerate(args) if a.startswith("--")), len(args))
    return f"$ rulemap {shlex.join(args[:first])} \\\n    {shlex.join(args[first:])}".rstrip()


def normalize(text: str) -> str:
    """The machine out of a transcript: the checkout's path, and trailing spaces (a table
    pads its lines; editors strip them)."""
    text = text.replace(str(REPO) + os.sep, "").replace(str(REPO), ".")
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def block(name: str) -> str:
    return f"```\n{output(EXAMPLES[name])}```\n"


def blocks(readme: str) -> dict[str, str]:
    """The README's demo blocks as written: name -> fenced block."""
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(readme)}


def refreshed(readme: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in EXAMPLES:
            raise SystemExit(f"README.md: <!-- demo:{name} --> names no example; one of "
                             f"{', '.join(EXAMPLES)}")
        return match.group(1) + block(name) + match.group(4)

    return _BLOCK.sub(replace, readme)


def main(argv: list[str]) -> int:
    readme = README.read_text(encoding="utf-8")
    new = refreshed(readme)
    if "--check" in argv:
        stale = [n for n, body in blocks(readme).items() if blocks(new).get(n) != body]
        if stale:
            print(f"README.md: stale demo blocks: {', '.join(stale)}; run "
                  f"`.venv/bin/python scripts/update_readme.py`", file=sys.stderr)
            return 1
        return 0
    if new != readme:
        README.write_text(new, encoding="utf-8")
        print("README.md: demo blocks refreshed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
