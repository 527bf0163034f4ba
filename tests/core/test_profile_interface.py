"""The profile interface declares what a profile offers (issue "Seven agents, one engine",
item 6): every registered profile inherits `Profile`, so each capability — imports followed,
watched files, glob dialect, load status, load groups, replay, its session format, its own
check codes — has a declared default, and no caller probes a profile with `getattr` or
`hasattr` for one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rulemap.profiles import PROFILES
from rulemap.profiles.base import Profile

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "rulemap"
MEMBERS = {
    name for name in dir(Profile) if not name.startswith("_")
} | set(Profile.__annotations__)


def test_the_interface_declares_the_capabilities() -> None:
    assert {
        "follows_imports", "watched_globs", "own_glob_dialect", "check_codes",
        "transcript_format", "layout", "load_status", "load_groups", "replay",
        "glob_matches", "glob_has_matches", "rule_matches", "first_matching_glob",
        "glob_key", "rule_globs", "misplaced",
    } <= MEMBERS


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_inherits_the_interface(name: str) -> None:
    profile = PROFILES[name]
    assert Profile in type(profile).__mro__
    assert all(isinstance(g, str) and g for g in profile.watched_globs), name
    assert isinstance(profile.follows_imports, bool)


def probes(source: str) -> list[str]:
    """`getattr(x, "<member>")` / `hasattr(x, "<member>")` of an interface member."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant) and node.args[1].value in MEMBERS
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_probe_scan_can_fail() -> None:
    assert probes('grouped = getattr(profile, "load_groups", None)\n') == [
        "1: getattr(profile, 'load_groups', None)"]


@pytest.mark.parametrize(
    "path", sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_no_caller_probes_a_profile(path: Path) -> None:
    found = probes(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(PACKAGE)} probes a profile's capability: {found}"
