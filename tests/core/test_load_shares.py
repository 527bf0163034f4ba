"""`Profile.load_shares`: what the editor's per-file overview (`reach.overview`) sums of an
agent's load groups. Claude Code shares a scoped rule's files once for all the targets it
matches (profiles/claude_code/groups.py `load_shares`) instead of once per load group; on
generated workspaces — rules importing files, some the same ones, chains past the hop limit,
rules a memory file imports too, nested memory, a cwd below the root — its overview is the
one the load groups give, glimpse for glimpse."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rulemap import reach
from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.profiles.base import Profile
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

DIRS = ["", "a", "a/b", "src", "src/api", "lib"]
NAMES = ["f.ts", "g.py", "h.tsx"]
GLOBS = ["src/**", "**/*.ts", "a/**", "lib/*.py", "nothing/**", "**/*.{ts,py}", "**"]
DOCS = ["docs/d0.md", "docs/d1.md", "docs/d2.md", "docs/d3.md", "docs/d4.md", "docs/d5.md"]


def _workspace(files: dict[str, str]) -> Workspace:
    return new_workspace(MemoryReader("/w", files))


def _tree(sources: list[str], rules: list[tuple[str, list[int]]], memory: list[str],
          chains: list[tuple[int, int]], root_imports: list[int]) -> dict[str, str]:
    tree = {path: "" for path in sources}
    for directory in memory:
        tree[f"{directory}/CLAUDE.md" if directory else "CLAUDE.md"] = f"memory {directory}\n"
    imports = " ".join(f"@{DOCS[i]}" for i in root_imports)
    tree["CLAUDE.md"] = f"root memory {imports}\n@.claude/rules/r0.md\n" if rules else "root\n"
    for i, doc in enumerate(DOCS):
        tree[doc] = f"doc {i}\n"
    for a, b in chains:  # doc a imports doc b: chains deeper than the hop limit, cycles
        tree[DOCS[a]] += f"@{DOCS[b].removeprefix('docs/')}\n"  # (beside it)
    for i, (glob, imported) in enumerate(rules):
        body = "".join(f"@../../{DOCS[k]}\n" for k in imported)  # (from .claude/rules)
        tree[f".claude/rules/r{i}.md"] = f"---\npaths: ['{glob}']\n---\nrule {i}\n{body}"
    return tree


def _by_groups(ws: Workspace, cwd: str, agent: str = "claude-code"
               ) -> dict[str, reach.Glimpse] | None:
    """`agent`'s overview summed group by group (the base `load_shares`)."""
    profile = get_profile(agent)
    shares = Profile.load_shares(profile, ws, cwd)
    original = type(profile).load_shares
    try:
        type(profile).load_shares = lambda self, ws, cwd: shares  # type: ignore[method-assign]
        return reach.overview(ws, profile, cwd)
    finally:
        type(profile).load_shares = original  # type: ignore[method-assign]


# generated trees: source files, rules with their globs and the docs they import, memory in
# some directories, docs importing docs (chains past the hop limit, cycles), the root's imports
TREES = {
    "sources": st.lists(st.tuples(st.sampled_from(DIRS), st.sampled_from(NAMES)).map(
        lambda t: f"{t[0]}/{t[1]}" if t[0] else t[1]), min_size=1, max_size=12),
    "rules": st.lists(st.tuples(st.sampled_from(GLOBS),
                                st.lists(st.integers(0, len(DOCS) - 1), max_size=2)),
                      max_size=5),
    "memory": st.lists(st.sampled_from(DIRS), max_size=3),
    "chains": st.lists(st.tuples(st.integers(0, len(DOCS) - 1),
                                 st.integers(0, len(DOCS) - 1)), max_size=6),
    "root_imports": st.lists(st.integers(0, len(DOCS) - 1), max_size=2),
    "cwd": st.sampled_from(["", "a", "src"]),
}
SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(**TREES)
# two rules import one file (the group-by-group way), and rules with files of their own
# (r0 is imported by CLAUDE.md: loaded at start-up by every load)
@example(sources=["src/f.ts", "a/g.py"], rules=[("**", []), ("src/**", [0]), ("**/*.ts", [0])],
         memory=[], chains=[], root_imports=[], cwd="")
@example(sources=["src/f.ts", "a/b/f.ts"], rules=[("**/*.ts", [1]), ("a/**", [2])],
         memory=["a"], chains=[(1, 3), (3, 4), (4, 5), (5, 0)], root_imports=[], cwd="")
def test_claude_code_overview_by_shares_is_the_groups_one(
    sources: list[str], rules: list[tuple[str, list[int]]], memory: list[str],
    chains: list[tuple[int, int]], root_imports: list[int], cwd: str,
) -> None:
    ws = _workspace(_tree(sources, rules, memory, chains, root_imports))
    profile = get_profile("claude-code")
    assert reach.overview(ws, profile, cwd) == _by_groups(ws, cwd)


def test_a_rule_is_one_share_for_every_file_it_matches() -> None:
    """A share per anchor and per rule matching a file under it, not a load per (anchor,
    rules) group; each rule's share counts the files it matches."""
    sources = [f"src/m{i}.ts" for i in range(4)] + ["lib/x.py", "a/y.ts", "a/z.py"]
    tree = _tree(sources, [("**/*.ts", []), ("src/**", [0]), ("**/*.py", [1])], ["a"], [], [])
    ws = _workspace(tree)
    shares = get_profile("claude-code").load_shares(ws, "")
    assert shares is not None
    counts: dict[tuple[str, ...], list[int]] = {}
    for files, _, n in shares:
        counts.setdefault(tuple(f.path for f in files), []).append(n)
    assert counts[(".claude/rules/r1.md", "docs/d0.md")] == [4]  # src/m0..3.ts
    assert sorted(counts[(".claude/rules/r2.md", "docs/d1.md")]) == [1, 1]  # one per anchor
    # the root's and a's links, then root: r0 r1 r2, a: r0 r2 (r0 brings nothing: CLAUDE.md
    # imports it, so it is loaded at start-up)
    assert len(shares) == 2 + 3 + 2 and sorted(counts[()]) == [1, 4]
    assert reach.overview(ws, get_profile("claude-code"), "") == _by_groups(ws, "")


def test_rules_that_bring_one_file_are_shared_group_by_group() -> None:
    """Which of two rules loads a file they both import depends on the group: the anchor's
    groups are loaded whole, as `load_groups` does, and the counts stay exact."""
    tree = _tree(["src/a.ts", "src/b.py", "lib/c.ts"],
                 [("**/*.ts", []), ("src/**", [3]), ("**/*.ts", [3])], [], [], [])
    ws = _workspace(tree)
    overview = reach.overview(ws, get_profile("claude-code"), "")
    assert overview == _by_groups(ws, "")
    assert overview is not None and overview["docs/d3.md"].files == 3


# ----- the default model (Cogitator): a shared budget --------------------------------------

def _cogitator(tree: dict[str, str], max_chars: int) -> Workspace:
    from rulemap.profiles import validate_options

    tree = {("AGENTS.md" if k == "CLAUDE.md" else k.replace("/CLAUDE.md", "/AGENTS.md")): v
            for k, v in tree.items()}
    return new_workspace(MemoryReader("/w", tree),
                         profile_options=validate_options({"cogitator": {"maxChars": max_chars}},
                                                          "test"))


@SETTINGS
@given(**TREES, max_chars=st.sampled_from([20, 60, 120, 32000]))
# a group over the budget beside groups within it; two rules that import one file
@example(sources=["src/f.ts", "lib/g.py", "a/h.tsx"],
         rules=[("**", []), ("src/**", [1]), ("**/*.ts", [2]), ("lib/*.py", [])], memory=["a"],
         chains=[], root_imports=[], cwd="", max_chars=120)
@example(sources=["src/f.ts", "a/g.py"], rules=[("**", []), ("src/**", [0]), ("**/*.ts", [0])],
         memory=[], chains=[(0, 1)], root_imports=[], cwd="", max_chars=32000)
def test_cogitator_overview_by_shares_is_the_groups_one(
    sources: list[str], rules: list[tuple[str, list[int]]], memory: list[str],
    chains: list[tuple[int, int]], root_imports: list[int], cwd: str, max_chars: int,
) -> None:
    ws = _cogitator(_tree(sources, rules, memory, chains, root_imports), max_chars)
    assert reach.overview(ws, get_profile("cogitator"), cwd) == _by_groups(ws, cwd, "cogitator")


def test_cogitator_groups_within_the_budget_are_summed_by_rule() -> None:
    """Within the budget a rule is one share of every target it matches; a group over it is
    its own share, cut as its load is."""
    sources = [f"src/m{i}.ts" for i in range(4)] + ["lib/x.py"]
    tree = _tree(sources, [("nothing/**", []), ("src/**", [0]), ("**/*.ts", [1])], [], [], [])
    roomy = get_profile("cogitator").load_shares(_cogitator(tree, 32000), "")
    assert roomy is not None
    assert sorted(n for files, _, n in roomy if files and files[0].path.startswith(".claude")) \
        == [4, 4]  # r1 and r2, each once, for src/m0..3.ts
    tight = _cogitator(tree, 60)
    shares = get_profile("cogitator").load_shares(tight, "")
    assert shares is not None and any(left for _, left, _ in shares)  # src/*: left out
    assert reach.overview(tight, get_profile("cogitator"), "") == _by_groups(tight, "", "cogitator")
