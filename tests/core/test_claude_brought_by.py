"""Claude Code's `brought_through` reads an importer's imports off the link that added it
(`ClaudeLoad.brought_by`), not off every link of the load (a link per directory level: 400 in
the deep shape, for each importer the duplicate check asks about). It must answer as the
definition does: the files of the whole load for `importer` that `importer` imported."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

PROFILE = get_profile("claude-code")
DIRS = ["", "a", "a/b", "a/b/c", "a/b/c/d", "e", "e/f"]
NAMES = ["CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "docs.md"]


def _tree(seed: int) -> tuple[dict[str, str], dict[str, str]]:
    rng = random.Random(seed)
    keys = sorted({f"{d}/{n}".lstrip("/") for d in DIRS for n in NAMES if rng.random() < 0.5}
                  | {"CLAUDE.md"})
    rules = [f".claude/rules/r{i}.md" for i in range(rng.randint(0, 3))]
    files: dict[str, str] = {}
    for key in [*keys, *rules]:
        imports = " ".join(f"@/w/{rng.choice(keys)}" if rng.random() < 0.2 else
                           f"@{rng.choice(keys)}" for _ in range(rng.randint(0, 4)))
        body = f"text of {key}\n{imports}\n"
        if key in rules and rng.random() < 0.7:
            body = f"---\npaths: ['{rng.choice(DIRS) or '*'}/**']\n---\n" + body
        files[key] = body
    for d in DIRS:
        files[f"{d}/x.ts".lstrip("/")] = ""
    links = {"e/f/CLAUDE.md": "../../CLAUDE.md"} if rng.random() < 0.5 else {}
    for link in links:
        files.pop(link, None)
    return files, links


def _ws(files: dict[str, str], links: dict[str, str]) -> Workspace:
    return new_workspace(MemoryReader("/w", files, links), None, home="/home/u",
                         profiles=(get_profile("cogitator"), PROFILE))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_brought_through_answers_as_the_whole_load(seed: int) -> None:
    files, links = _tree(seed)
    ws = _ws(files, links)
    importers = sorted(k for k in [*files, *links] if k.endswith(".md"))
    for cwd in (".", "a/b"):
        for importer in importers:
            whole = frozenset(f.path for f in PROFILE.explain(ws, importer, cwd).files
                              if f.imported_by == importer)
            assert PROFILE.brought_through(ws, importer, cwd) == whole, (importer, cwd)


def test_an_importer_deep_down_is_found_in_its_own_link() -> None:
    # 60 levels: the nested AGENTS.md at the bottom imports a file beside it; the root's
    # CLAUDE.md imports one at the top. Each is read off its own link.
    deep = "/".join(f"d{i}" for i in range(60))
    files = {"CLAUDE.md": "@top.md\n", "top.md": "top\n", f"{deep}/CLAUDE.md": "@near.md\n",
             f"{deep}/near.md": "near\n", f"{deep}/x.ts": ""}
    ws = _ws(files, {})
    assert PROFILE.brought_through(ws, f"{deep}/CLAUDE.md", ".") == {f"{deep}/near.md"}
    assert PROFILE.brought_through(ws, "CLAUDE.md", ".") == {"top.md"}
    assert PROFILE.brought_through(ws, f"{deep}/near.md", ".") == frozenset()
