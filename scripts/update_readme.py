"""Refresh the README's example output: `make demo`'s commands on examples/demo, the tour's
commands on a real repository vendored in tests/realworld/entries/, and the `rulemap diff main`
example (README.md and docs/diff.md) on a change to examples/demo.

    .venv/bin/python scripts/update_readme.py          rewrite the blocks in README.md
    .venv/bin/python scripts/update_readme.py --check  exit 1 (and say which) if one is stale

Each example is a fenced block between `<!-- demo:NAME -->` and `<!-- /demo -->`; only those
blocks are rewritten. The commands run at 80 columns, with no user configuration and no colour:
the demo's from the repository root exactly as `make demo` spells them, the tour's from the
root of the tour repository rebuilt by tests/realworld/materialize.py (its instruction files
byte-identical, every other path an empty file), as in a clone of it at the pinned commit.
tests/core/test_readme.py holds all of this.

A transcript shows what a terminal shows: what the command wrote to stderr (the agents it
answered for, notes), then its result on stdout. The diff example is the ```text block that
starts `$ rulemap diff main`: the output on stdout of that command in a copy of examples/demo
committed as `main`, then changed (DIFF_EDITS); tests/core/test_diff_cli.py holds it.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

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

# The tour: a real repository at a pinned commit, its instruction files vendored here.
TOUR_ENTRY = REPO / "tests" / "realworld" / "entries" / "marimo-team__marimo"
TOUR_TARGET = "frontend/src/core/cells/cells.ts"
# name -> the arguments of `rulemap`, run from the tour repository's root
TOUR: dict[str, list[str]] = {
    "tour-check": ["check"],
    "tour-compare": ["compare", TOUR_TARGET],
    "tour-why": ["why", "Write clear, maintainable code over clever/short syntax",
                 TOUR_TARGET],
}

# The diff example: examples/demo committed as `main`, then these edits in the working tree.
DIFF_DOCS = (README, REPO / "docs" / "diff.md")
DIFF_ARGS = ["diff", "main"]
_DIFF_BLOCK = re.compile(r"(```text\n\$ rulemap diff main\n)(.*?)(```)", re.S)
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo", "GIT_COMMITTER_EMAIL": "demo@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def _diff_edits(demo: Path) -> None:
    """Narrow a rule's glob and add `packages/web/src/main.ts` to it; append an import with a
    trailing full stop to `packages/web/AGENTS.md`."""
    rule = demo / ".claude" / "rules" / "api-handlers.md"
    rule.write_text(rule.read_text(encoding="utf-8").replace(
        '"packages/api/src/**/*.ts"',
        '"packages/api/src/handlers/*.ts"\n  - "packages/web/src/main.ts"'), encoding="utf-8")
    with (demo / "packages" / "web" / "AGENTS.md").open("a", encoding="utf-8") as fh:
        fh.write("\nTests: see @../../docs/testing.md.\n")


@functools.cache
def diff_output() -> str:
    """What `rulemap diff main` prints on stdout for the diff example."""
    import shutil

    with tempfile.TemporaryDirectory() as scratch:
        demo = Path(scratch) / "demo"
        shutil.copytree(REPO / DEMO, demo)
        env = {**os.environ, **_GIT_ENV}
        for git in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "demo"]):
            subprocess.run(["git", "-c", "init.defaultBranch=main", *git], cwd=demo, env=env,
                           check=True, capture_output=True)
        _diff_edits(demo)
        proc = subprocess.run(
            [sys.executable, "-m", "rulemap", *DIFF_ARGS], cwd=demo, env=_command_env(scratch),
            capture_output=True, text=True, timeout=120, check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"rulemap diff main failed ({proc.returncode}):\n{proc.stderr}")
        return normalize(proc.stdout, demo)


def refreshed_diff(text: str) -> str:
    """`text` with its `$ rulemap diff main` example refreshed."""
    return _DIFF_BLOCK.sub(lambda m: m.group(1) + diff_output() + m.group(3), text)


_BLOCK = re.compile(r"(<!-- demo:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /demo -->)", re.S)


def tour_source() -> dict[str, str]:
    """The tour repository's SOURCE.txt as keys and values (`repo`, `url`, `commit`, …)."""
    fields: dict[str, str] = {}
    for line in (TOUR_ENTRY / "SOURCE.txt").read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition(": ")
        if sep and key and not key.startswith(" ") and key not in fields:
            fields[key] = value.strip()
    return fields


def _materialize_module() -> ModuleType:
    path = REPO / "tests" / "realworld" / "materialize.py"
    spec = importlib.util.spec_from_file_location("realworld_materialize", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def tour_root() -> Path:
    """The tour repository rebuilt once per process (removed when the process exits)."""
    holder = tempfile.TemporaryDirectory(prefix="rulemap-tour-")
    _KEEP.append(holder)
    root = Path(holder.name) / TOUR_ENTRY.name.split("__", 1)[1]
    _materialize_module().materialize(TOUR_ENTRY, root)
    return root


_KEEP: list[tempfile.TemporaryDirectory[str]] = []


def _command_env(config_home: str) -> dict[str, str]:
    """The environment of an example: 80 columns, no colour, no user configuration, this
    checkout's package."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RULEMAP_CONFIG", "FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(
        COLUMNS=str(WIDTH),
        XDG_CONFIG_HOME=config_home,
        NO_COLOR="1",
        PYTHONPATH=os.pathsep.join(
            p for p in (str(REPO / "server"), env.get("PYTHONPATH", "")) if p
        ),
    )
    return env


def run(args: list[str], cwd: Path) -> str:
    """What `rulemap ARGS` prints from `cwd`: stderr, then stdout."""
    with tempfile.TemporaryDirectory() as config_home:
        proc = subprocess.run(
            [sys.executable, "-m", "rulemap", *args],
            cwd=cwd, env=_command_env(config_home), capture_output=True, text=True,
            timeout=120, check=False,
        )
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise SystemExit(f"rulemap {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stderr + proc.stdout


def output(args: list[str]) -> str:
    """A demo example's transcript, run from the repository root."""
    return normalize(f"{command_line(args)}\n{run(args, REPO)}", REPO)


def tour_output(args: list[str]) -> str:
    """A tour example's transcript, run from the tour repository's root."""
    root = tour_root()
    return normalize(f"{command_line(args)}\n{run(args, root)}", root)


def command_line(args: list[str]) -> str:
    """`$ rulemap ARGS`, its options (or, with none, its last argument) on a continuation line
    when it passes the width."""
    line = f"$ rulemap {shlex.join(args)}"  # quoted as a shell needs it
    if len(line) <= WIDTH:
        return line
    first = next((i for i, a in enumerate(args) if a.startswith("--")), len(args))
    if first == len(args):
        first = len(args) - 1
    return f"$ rulemap {shlex.join(args[:first])} \\\n    {shlex.join(args[first:])}".rstrip()


def normalize(text: str, root: Path = REPO) -> str:
    """The machine out of a transcript: the root's path, and trailing spaces (a table pads its
    lines; editors strip them)."""
    for spelling in {str(root), str(root.resolve())}:
        text = text.replace(spelling + os.sep, "").replace(spelling, ".")
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def block(name: str) -> str:
    text = tour_output(TOUR[name]) if name in TOUR else output(EXAMPLES[name])
    return f"```\n{text}```\n"


def names() -> list[str]:
    """Every example the README must hold."""
    return sorted([*EXAMPLES, *TOUR])


def blocks(readme: str) -> dict[str, str]:
    """The README's demo blocks as written: name -> fenced block."""
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(readme)}


def refreshed(readme: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in EXAMPLES and name not in TOUR:
            raise SystemExit(f"README.md: <!-- demo:{name} --> names no example; one of "
                             f"{', '.join(names())}")
        return match.group(1) + block(name) + match.group(4)

    return _BLOCK.sub(replace, readme)


def main(argv: list[str]) -> int:
    stale: list[str] = []
    for doc in dict.fromkeys((README, *DIFF_DOCS)):
        text = doc.read_text(encoding="utf-8")
        new = refreshed_diff(refreshed(text) if doc == README else text)
        if new == text:
            continue
        name = doc.relative_to(REPO).as_posix()
        if "--check" in argv:
            names = [n for n, body in blocks(text).items() if blocks(new).get(n) != body]
            if _DIFF_BLOCK.findall(text) != _DIFF_BLOCK.findall(new):
                names.append("diff")
            stale.append(f"{name}: {', '.join(names)}")
        else:
            doc.write_text(new, encoding="utf-8")
            print(f"{name}: example output refreshed")
    if stale:
        print(f"stale examples: {'; '.join(stale)}; run "
              f"`.venv/bin/python scripts/update_readme.py`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
