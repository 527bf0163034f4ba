"""The file → rules index kept by distinct pattern (`workspace.pattern_index.RulesOfFile`)
equals matching every rule against every file, on random workspaces and random globs, and
stays equal to a rebuild while rules are added, removed and edited and files come and go.
Its upper bound of a rule set's weight, summed over patterns, is never below the sum over
the rules, and its pair counts are the naive ones."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rulemap.analysis import new_workspace
from rulemap.globs import compile_patterns
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace
from rulemap.workspace.pattern_index import RulesOfFile

GLOBS = ["src/**", "**/*.py", "*.ts", "**/*.ts", "src/*.ts", "lib/**/*.ts", "docs/**",
         "**/api/**", "{src,lib}/**/*.ts", "src/api", "!src/api/**", "!**/*.py", "**/*",
         "lib/a.py", "**/[ab].*", "src/*/b.ts", "nothing/**", "api/**", "*.md"]
# Directories never look like file names here: `**/*.py` picks files by their name's ending
# (no agent takes `a.py/x` as gitignore would), which test_glob_buckets.py pins on its own.
DIRECTORIES = ["src", "lib", "api", "docs"]
NAMES = ["a.py", "b.ts", "c.md", "x.test.ts", "api"]
OWNERS = ["", "", "src", "lib"]

files_st = st.lists(
    st.tuples(st.lists(st.sampled_from(DIRECTORIES), max_size=3), st.sampled_from(NAMES))
    .map(lambda t: "/".join([*t[0], t[1]])), min_size=1, max_size=14)
rules_st = st.lists(st.tuples(st.sampled_from(OWNERS),
                              st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3)),
                    min_size=1, max_size=8)


def _rule_text(globs: list[str]) -> str:
    return "---\npaths:\n" + "".join(f'  - "{g}"\n' for g in globs) + "---\nRule.\n"


def _random_file(rng: random.Random) -> str:
    return "/".join([*rng.choices(DIRECTORIES, k=rng.randint(0, 3)), rng.choice(NAMES)])


def _tree(files: list[str], rules: list[tuple[str, list[str]]]) -> dict[str, str]:
    # a path is a file or a directory, never both (`api` is a name of either)
    tree = {f: "" for f in files if not any(g.startswith(f + "/") for g in files)}
    for number, (owner, globs) in enumerate(rules):
        base = f"{owner}/" if owner else ""
        tree[f"{base}.claude/rules/r{number}.md"] = _rule_text(globs)
    return tree


def _naive(ws: Workspace) -> dict[str, tuple[str, ...]]:
    """Every scoped rule tested against every file of its scope, by its whole compiled
    pattern list (the last matching pattern deciding, `!` included)."""
    out: dict[str, list[str]] = {}
    for rule in ws.rules:
        if not ws.is_scoped(rule.path):
            continue
        doc = ws.document(rule.path)
        patterns = [p for g in doc.globs or [] if g.error is None for p in g.expanded]
        if not patterns:
            continue
        compiled = compile_patterns(patterns)
        for path in ws.files:
            relative = rule.scope.relative(path)
            if relative is not None and compiled.match(relative):
                out.setdefault(path, []).append(rule.path)
    return {path: tuple(rules) for path, rules in sorted(out.items())}


@settings(max_examples=200, deadline=None)
@given(files=files_st, rules=rules_st)
@example(files=["src/a.py", "src/b.ts"],
         rules=[("", ["**/*.ts"]), ("", ["**/*.ts", "src/**"]), ("src", ["*.ts"])])
def test_the_pattern_index_equals_matching_every_rule(
    files: list[str], rules: list[tuple[str, list[str]]]
) -> None:
    ws = new_workspace(MemoryReader("/w", _tree(files, rules)))
    index = ws.scoped_rules_index()
    naive = _naive(ws)
    assert index.as_dict() == naive
    for path in ws.files:
        assert index.get(path) == naive.get(path, ())
        assert (path in index) == (path in naive)
    rule_pairs, pattern_pairs = index.pairs()
    assert rule_pairs == sum(len(r) for r in naive.values())
    # one pattern written by several rules is one run of matches, shared
    assert pattern_pairs == sum(len(run) for run in _distinct_runs(ws))


def _distinct_runs(ws: Workspace) -> list[list[str]]:
    """The match list of each distinct (owner, pattern), and of each rule with an excluding
    pattern as a whole, computed naively."""
    runs: dict[tuple[str, str], list[str]] = {}
    for rule in ws.rules:
        if not ws.is_scoped(rule.path):
            continue
        patterns = [p for g in ws.document(rule.path).globs or [] if g.error is None
                    for p in g.expanded]
        if not patterns:
            continue
        compiled = compile_patterns(patterns)
        if any(p.startswith("!") for p in compiled.patterns):
            keys = [("!", rule.path, compiled)]
        else:
            keys = [(rule.owner, p, compile_patterns([p])) for p in compiled.patterns]
        for owner, pattern, one in keys:
            scope = rule.scope
            runs.setdefault((owner, pattern), [
                f for f in ws.files
                if (rel := scope.relative(f)) is not None and one.match(rel)])
    return list(runs.values())


@settings(max_examples=100, deadline=None)
@given(files=files_st, rules=rules_st, weights=st.lists(st.integers(0, 50), min_size=8,
                                                         max_size=8))
def test_a_bound_over_patterns_is_never_below_the_rules_weight(
    files: list[str], rules: list[tuple[str, list[str]]], weights: list[int]
) -> None:
    ws = new_workspace(MemoryReader("/w", _tree(files, rules)))
    index = ws.scoped_rules_index()

    def weight(rule: str) -> int:
        return weights[int(rule.rsplit("/r", 1)[1].removesuffix(".md")) % len(weights)]

    per_pattern = index.pattern_weights(weight)
    for path in ws.files:
        mask = index.mask(path)
        bound = index.bound(mask, per_pattern)
        exact = sum(map(weight, index.rules_of(mask)))
        assert bound is not None and bound >= exact


def test_rules_sharing_a_pattern_share_its_matches_and_count_once() -> None:
    """300 rules writing `**/*.ts` are one pattern: (file, pattern) pairs count its files
    once, (file, rule) pairs once per rule; a file's rule tuple lists them all in order."""
    tree = {f"src/m{i}.ts": "" for i in range(20)}
    tree.update({f".claude/rules/r{i:03}.md": _rule_text(["**/*.ts"]) for i in range(30)})
    tree[".claude/rules/z.md"] = _rule_text(["src/m1*.ts"])
    ws = new_workspace(MemoryReader("/w", tree))
    index = ws.scoped_rules_index()
    assert index.pairs() == (20 * 30 + 11, 20 + 11)
    assert index.get("src/m3.ts") == tuple(f".claude/rules/r{i:03}.md" for i in range(30))
    assert index.get("src/m12.ts")[-1] == ".claude/rules/z.md"
    assert index.get("src/m3.ts") is index.get("src/m4.ts")  # one tuple per rule set


@settings(max_examples=40, deadline=None)
@given(files=files_st, rules=rules_st, seed=st.integers(0, 2**16))
def test_the_index_stays_equal_to_a_rebuild_through_edits(
    files: list[str], rules: list[tuple[str, list[str]]], seed: int
) -> None:
    """Rules edited (patched in place), added and removed, files created and deleted: the
    index answers as a fresh workspace's, and as matching every rule."""
    rng = random.Random(seed)
    tree = _tree(files, rules)
    ws = new_workspace(MemoryReader("/w", dict(tree)))
    ws.scoped_rules_index()  # built first, so that edits patch it
    for _ in range(8):
        rule_keys = [k for k in tree if "/rules/" in k or k.startswith(".claude/rules/")]
        action = rng.choice(["edit", "edit", "create", "delete", "add-rule", "drop-rule"])
        if action == "edit" and rule_keys:
            key = rng.choice(rule_keys)
            tree[key] = _rule_text(rng.sample(GLOBS, rng.randint(1, 3)))
            ws.reader.files[ws.abs(key)] = tree[key].encode()
            ws.update(changed=[key])
        elif action == "create":
            key = _random_file(rng)
            if key in tree or any(k.startswith(key + "/") or key.startswith(k + "/")
                                  for k in tree):
                continue
            tree[key] = ""
            ws.reader.files[ws.abs(key)] = b""
            ws.update(created=[key])
        elif action == "delete":
            plain = [k for k in tree if k not in rule_keys]
            if not plain:
                continue
            key = rng.choice(plain)
            del tree[key], ws.reader.files[ws.abs(key)]
            ws.update(deleted=[key])
        elif action == "add-rule":
            owner = rng.choice(OWNERS)
            key = f"{owner + '/' if owner else ''}.claude/rules/n{rng.randint(0, 99)}.md"
            if key in tree:
                continue
            tree[key] = _rule_text(rng.sample(GLOBS, rng.randint(1, 3)))
            ws.reader.files[ws.abs(key)] = tree[key].encode()
            ws.update(created=[key])
        elif action == "drop-rule" and rule_keys:
            key = rng.choice(rule_keys)
            del tree[key], ws.reader.files[ws.abs(key)]
            ws.update(deleted=[key])
        index = ws.scoped_rules_index()
        assert isinstance(index, RulesOfFile)
        fresh = new_workspace(MemoryReader("/w", dict(tree)))
        assert index == fresh.scoped_rules_index()
        assert index.as_dict() == _naive(fresh)
        assert index.pairs()[0] == fresh.scoped_rules_index().pairs()[0]
