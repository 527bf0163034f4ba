"""An agent's facts live in its profile and nowhere else (docs/architecture.md, invariant 5).

The facts are read from the registry itself — each profile's name, the literal file and
directory names of its `watched_globs`, the directories its session logs live in, and the
numbers its options start from — so a new agent's facts are held as soon as it is registered.
Every module outside `profiles/` is parsed, and a string it spells (docstrings aside: prose
may explain an agent) or a number it writes must not be one of them: such a module would be
thinking in one agent's terms, and a second agent would get the first one's answer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rulemap.profiles import PROFILES

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "rulemap"


def _names() -> set[str]:
    """Literal path segments an agent reads: `AGENTS.md`, `.claude`, `.cursorrules`, …"""
    out: set[str] = set()
    for profile in PROFILES.values():
        globs = [*profile.watched_globs]
        if profile.transcript_format is not None:
            globs.extend(profile.transcript_format.log_dirs)
        for glob in globs:
            out.update(s for s in glob.split("/") if "*" not in s and "." in s)
    return out


def _numbers() -> set[int]:
    """The limits agents start from (budgets, sizes): option defaults of four digits or more."""
    return {
        o.default for p in PROFILES.values() for o in p.options
        if isinstance(o.default, int) and not isinstance(o.default, bool) and o.default >= 1000
        and o.default != 1000  # a round thousand is too common to be anyone's fact
    }


NAMES = _names()
PROFILE_NAMES = set(PROFILES)
NUMBERS = _numbers()
_SEGMENTS = re.compile(r"[\s/`'\"(),:;=*~]+")


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _outside_profiles() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(PACKAGE).parts[0] != "profiles"
    )


def facts_in(source: str) -> list[str]:
    """Each agent fact `source` spells, as `line: value`."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in skip:
            continue
        value = node.value
        if isinstance(value, str):
            segments = set(_SEGMENTS.split(value))
            hits = (segments & NAMES) | (segments & PROFILE_NAMES)
            if hits:
                found.append(f"{node.lineno}: {sorted(hits)} in {value[:80]!r}")
        elif isinstance(value, int) and not isinstance(value, bool) and value in NUMBERS:
            found.append(f"{node.lineno}: {value}")
    return found


def test_the_facts_are_read_from_the_registry() -> None:
    """The scan knows the facts it must (so it can fail)."""
    assert {"AGENTS.md", "CLAUDE.md", ".claude", "GEMINI.md", ".cursor"} <= NAMES
    assert {"cogitator", "claude-code", "codex"} <= PROFILE_NAMES
    assert {32000, 32768} <= NUMBERS
    assert facts_in('RULES = ".claude/rules/"\nLIMIT = 32000\nDEFAULT = "cogitator"\n') == [
        "1: ['.claude'] in '.claude/rules/'", "2: 32000", "3: ['cogitator'] in 'cogitator'",
    ]
    assert facts_in('"""Reads AGENTS.md (prose)."""\nx = "instructions"\n') == []


@pytest.mark.parametrize(
    "path", _outside_profiles(), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_no_agent_fact_outside_profiles(path: Path) -> None:
    found = facts_in(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(PACKAGE)} spells agent facts (move them to the agent's profile, "
        f"or ask the profile / the registry): {found}"
    )
