"""`Profile.startup_prefix`: every target's load begins with the start-up load unchanged —
checked for each profile that declares it on generated workspaces (nested files, scoped
rules, imports, budgets that cut) — and `rulemap reach` of a start-up file, which then skips
grouping every file's load, answers exactly what the grouped computation answers."""

from __future__ import annotations

import random

import pytest

from rulemap.analysis import open_workspace
from rulemap.profiles import PROFILES, get_profile
from rulemap.reach import reach
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

DECLARED = sorted(name for name, p in PROFILES.items() if p.startup_prefix)


def _workspace(seed: int) -> Workspace:
    rng = random.Random(seed)
    dirs = ["", "src", "src/api", "src/web", "src/web/ui", "lib", "docs"]
    files: dict[str, str] = {}
    if rng.random() < 0.7:
        files["rulemap.toml"] = f"maxChars = {rng.choice([300, 800, 5000])}\n"
    files["AGENTS.md"] = "# Root\n\n" + "Root line of guidance.\n" * rng.randint(1, 40) + \
        ("See @docs/style.md\n" if rng.random() < 0.6 else "")
    if rng.random() < 0.6:
        files["CLAUDE.md"] = "@AGENTS.md\n" + "Claude line.\n" * rng.randint(0, 20)
    files["docs/style.md"] = "Style line.\n" * rng.randint(1, 30)
    for d in dirs[1:]:
        if rng.random() < 0.5:
            name = rng.choice(["AGENTS.md", "CLAUDE.md", "GEMINI.md"])
            files[f"{d}/{name}"] = f"# {d}\n" + "Nested line.\n" * rng.randint(1, 30)
        for i in range(rng.randint(1, 3)):
            files[f"{d}/f{i}.{rng.choice(['ts', 'py'])}"] = ""
    for i in range(rng.randint(0, 4)):
        globs = rng.choice(['"src/**"', '"**/*.ts"', '"src/api/**"', '"lib/*.py"', '"none/**"'])
        head = f"---\npaths: [{globs}]\n---\n" if rng.random() < 0.7 else ""
        files[f".claude/rules/r{i}.md"] = head + f"Rule {i} line.\n" * rng.randint(1, 25)
    files[".cursor/rules/c.mdc"] = "---\nalwaysApply: true\n---\nCursor rule.\n"
    files[".cursor/rules/s.mdc"] = '---\nglobs: "src/**"\n---\nScoped Cursor rule.\n'
    files[".cursor/rules/d.mdc"] = "---\ndescription: when asked\n---\nRequested rule.\n"
    if rng.random() < 0.7:
        files["GEMINI.md"] = "# Gemini\n\nSee @docs/style.md\n"
    return open_workspace("/w", MemoryReader("/w", files))


def _signature(files: list) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
    return [(f.path, f.reason, f.imported_by, f.chars, f.bytes, f.cut, f.cut_line)
            for f in files]


@pytest.mark.parametrize("name", DECLARED)
@pytest.mark.parametrize("seed", range(12))
def test_every_load_begins_with_the_start_up_load(name: str, seed: int) -> None:
    ws = _workspace(seed)
    profile = get_profile(name)
    start = profile.explain(ws, None, "")
    head = _signature(start.files)
    for target in ws.files:
        load = profile.explain(ws, target, "")
        assert _signature(load.files)[:len(head)] == head, (target, seed)
        assert set(start.left_out) <= set(load.left_out), (target, seed)


@pytest.mark.parametrize("name", DECLARED)
@pytest.mark.parametrize("seed", range(12))
def test_reach_of_a_start_up_file_is_what_the_groups_say(
        name: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _workspace(seed)
    profile = get_profile(name)
    keys = [f.path for f in profile.explain(ws, None, "").files]
    keys += profile.explain(ws, None, "").left_out
    asked = [(key, line) for key in keys if not key.startswith("/")
             for line in (None, 0, 3, 12, 30) if line is None
             or line < len(ws.document(key).lines)]
    fast = [reach(ws, key, line, [profile], "").to_json() for key, line in asked]
    monkeypatch.setattr(type(profile), "startup_prefix", False)
    slow = [reach(ws, key, line, [profile], "").to_json() for key, line in asked]
    for (key, line), got, want in zip(asked, fast, slow, strict=True):
        assert got == want, (key, line, seed)


def test_the_generated_workspaces_cut_and_leave_out() -> None:
    """The comparison above is not vacuous: some start-up loads are cut, some leave out."""
    cut = left = 0
    for seed in range(12):
        start = get_profile("cogitator").explain(_workspace(seed), None, "")
        cut += any(f.cut for f in start.files)
        left += bool(start.left_out)
    assert cut >= 2 and left >= 2, (cut, left)


def test_the_profiles_that_declare_it() -> None:
    """The agents whose docs say later files join after the start-up load (a profile that
    loads the nearest file instead — Copilot's and Mastra's AGENTS.md — must not declare
    it)."""
    assert DECLARED == ["claude-code", "codex", "cogitator", "gemini"]
    for name in ("copilot", "mastra", "cursor"):  # Cursor: scoped rules before requested ones
        assert not get_profile(name).startup_prefix


@pytest.mark.parametrize("name", ["copilot", "mastra", "cursor"])
def test_the_profiles_that_do_not_declare_it_would_be_wrong_to(name: str) -> None:
    """Some generated workspace has a target whose load does not begin with the start-up
    load: declaring it for these agents would give wrong answers."""
    profile = get_profile(name)
    for seed in range(12):
        ws = _workspace(seed)
        head = _signature(profile.explain(ws, None, "").files)
        if any(_signature(profile.explain(ws, t, "").files)[:len(head)] != head
               for t in ws.files):
            return
    pytest.fail(f"{name}: every load began with its start-up load on every workspace")
