"""`Profile.load_groups_for`, what `rulemap reach` asks: Claude Code groups the files by
their nested memory alone when no scoped rule brings the file asked about
(profiles/claude_code/groups.py). On generated workspaces — memory files nested at various
depths importing docs, scoped rules matching some files and importing docs or memory files,
symlinked names, a cwd below the root — the reach of every instruction file, rule and
imported file is the one the fine groups (`load_groups`) and one explanation per file
give."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.profiles.base import Profile
from rulemap.reach import reach
from rulemap.readers import MemoryReader

DIRS = ["", "a", "a/b", "a/b/c", "src", "src/api", "lib"]
DOCS = ["docs/one.md", "docs/two.md", "a/notes.md"]
GLOBS = ["src/**", "**/*.ts", "a/**", "*.py", "nothing/**", "**"]
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def _at(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


@st.composite
def trees(draw: st.DrawFn) -> tuple[dict[str, str], dict[str, str]]:
    tree: dict[str, str] = {}
    for directory in draw(st.lists(st.sampled_from(DIRS), min_size=1, max_size=5)):
        tree[_at(directory, draw(st.sampled_from(["f.ts", "g.py", "h.txt"])))] = ""
    docs = draw(st.lists(st.sampled_from(DOCS), max_size=2, unique=True))
    for doc in docs:
        tree[doc] = f"doc {doc}\n"
    for directory in draw(st.lists(st.sampled_from(DIRS), max_size=4, unique=True)):
        imports = draw(st.lists(st.sampled_from(docs), max_size=2)) if docs else []
        lines = [f"memory of {directory or 'the root'}", *(f"@/{d}" for d in imports)]
        tree[_at(directory, "CLAUDE.md")] = "\n".join(lines) + "\n"
    memory = [k for k in tree if k.endswith("CLAUDE.md")]
    for i in range(draw(st.integers(0, 3))):
        glob = draw(st.sampled_from(GLOBS))
        brings = draw(st.sampled_from([None, *docs, *memory]))
        body = f"rule {i}\n" + (f"@/{brings}\n" if brings else "")
        tree[f".claude/rules/r{i}.md"] = f"---\npaths: ['{glob}']\n---\n{body}"
    links: dict[str, str] = {}
    if docs and draw(st.booleans()):
        links["docs/alias.md"] = docs[0]  # another name of a doc
    return tree, links


@SETTINGS
@given(tree=trees(), cwd=st.sampled_from(["", "a"]))
@example(tree=({"src/f.ts": "", "a/CLAUDE.md": "memory\n@/docs/one.md\n",
                "docs/one.md": "doc\n",
                ".claude/rules/r0.md": "---\npaths: ['src/**']\n---\nrule\n@/docs/one.md\n"},
               {}), cwd="")
def test_claude_code_reach_by_nested_memory_is_the_reach_by_every_group(
    tree: tuple[dict[str, str], dict[str, str]], cwd: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    files, links = tree
    profile = get_profile("claude-code")
    keys = sorted({*files, *links} - {k for k in files if not k.endswith(".md")})

    def answers() -> list[object]:
        ws = new_workspace(MemoryReader("/w", files, links or None))
        return [reach(ws, key, None, [profile], cwd).to_json() for key in keys]

    coarse = answers()
    with monkeypatch.context() as patch:
        patch.setattr(type(profile), "load_groups_for", Profile.load_groups_for)
        fine = answers()
        patch.setattr(type(profile), "load_groups", lambda self, ws, cwd: None)
        one_by_one = answers()
    assert coarse == fine == one_by_one
