"""`rulemap why` of a sentence in none of the documents searches what every load brings; it
first searches what each agent's loads may bring (`Profile.may_bring`: cogitator's and
Claude Code's documents and what they import), and says "nowhere" from that alone. On
generated workspaces — memory files nested at various depths, imports in each agent's
syntax from memory files, rules and imported files, rules matching some files — a sentence of
every file is found exactly where the search of every load group finds it, and every file
of every load (each file's own) is in the agent's bound."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rulemap import why as why_module
from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.readers import MemoryReader
from rulemap.why import find

DIRS = ["", "a", "a/b", "src", "lib"]
DOCS = ["docs/one.md", "docs/two.md", "a/notes.md", "notes/deep.txt"]
GLOBS = ["src/**", "**/*.ts", "a/**", "nothing/**"]
NAMES = ["CLAUDE.md", "AGENTS.md", "CLAUDE.local.md", "GEMINI.md"]
AGENTS = ["cogitator", "claude-code", "codex", "gemini", "cursor"]
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    tree: dict[str, str] = {}
    for directory in draw(st.lists(st.sampled_from(DIRS), min_size=1, max_size=4)):
        tree[f"{directory}/f.ts" if directory else "f.ts"] = ""
    docs = draw(st.lists(st.sampled_from(DOCS), max_size=3, unique=True))

    def imports() -> str:
        chosen = draw(st.lists(st.sampled_from(docs), max_size=2)) if docs else []
        return "".join(f"\n{draw(st.sampled_from(['@/', '@', 'See @/']))}{d}" for d in chosen)

    for doc in docs:
        tree[doc] = f"text of {doc}{imports()}\n"
    for directory in draw(st.lists(st.sampled_from(DIRS), max_size=4, unique=True)):
        name = draw(st.sampled_from(NAMES))
        key = f"{directory}/{name}" if directory else name
        tree[key] = f"text of {key}{imports()}\n"
    for i in range(draw(st.integers(0, 2))):
        key = f".claude/rules/r{i}.md"
        tree[key] = f"---\npaths: ['{draw(st.sampled_from(GLOBS))}']\n---\ntext of {key}" \
                    f"{imports()}\n"
    return tree


@SETTINGS
@given(tree=trees(), agents=st.lists(st.sampled_from(AGENTS), min_size=1, max_size=3,
                                     unique=True), cwd=st.sampled_from(["", "a"]))
@example(tree={"f.ts": "", "CLAUDE.md": "text of CLAUDE.md\n@docs/one.md\n",
               "docs/one.md": "text of docs/one.md\n@/notes/deep.txt\n",
               "notes/deep.txt": "text of notes/deep.txt\n"},
         agents=["claude-code"], cwd="")
def test_a_sentence_is_found_where_every_load_group_finds_it(
    tree: dict[str, str], agents: list[str], cwd: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    profiles = [get_profile(n) for n in agents]
    sentences = [f"text of {key}" for key in sorted(tree) if tree[key]] + ["nowhere at all"]

    def found() -> list[object]:
        ws = new_workspace(MemoryReader("/w", tree))
        return [find(ws, s, profiles, None, cwd) for s in sentences]

    bounded = found()
    with monkeypatch.context() as patch:
        patch.setattr(why_module, "_bound_sources", why_module._grouped_sources)
        grouped = found()
    assert bounded == grouped
    # the bound holds every file of every load, for every target (each file's own)
    ws = new_workspace(MemoryReader("/w", tree))
    for profile in profiles:
        bound = profile.may_bring(ws, cwd)
        if bound is None:
            continue
        for target in [None, *ws.files]:
            loaded = {f.path for f in profile.explain(ws, target, cwd).files}
            assert loaded <= bound, (profile.name, target, sorted(loaded - bound))
