"""Glob matching that reads a bucket instead of every file gives what testing every file gives:
Claude Code's scoped rules through their index (`rules.rule_index`), its views' `glob_matches`
through the probes' buckets, and `globs.prefiltered` without its per-path concatenation —
random globs of every shape against random files."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_claude_code import PROFILE, make

from rulemap.profiles.claude_code.rules import rule_globs

SEGMENTS = ["src", "api", "Docs", "test", "a.py", "b.ts", "Makefile", "x.test.ts", "lib"]
GLOBS = ["src/**", "**/*.py", "*.ts", "Makefile", "**/api/**", "docs/**", "**/*", "*",
         "src/*.ts", "**/test/*.test.ts", "lib/a.py", "{src,lib}/**/*.ts", "**/[ab].*",
         "src/**/!(x).ts", "SRC/**", "**/*.TS", "api", "*.test.ts", "!src/**", "**/lib"]

paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("/".join)


@settings(max_examples=200, deadline=None)
@given(
    rules=st.lists(st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3), min_size=1,
                   max_size=6),
    targets=st.lists(paths, min_size=1, max_size=6),
    case_sensitive=st.booleans(),
)
def test_the_index_finds_exactly_the_rules_that_match(
    rules: list[list[str]], targets: list[str], case_sensitive: bool
) -> None:
    files = {f".claude/rules/r{i}.md": "---\npaths:\n" + "".join(f'  - "{g}"\n' for g in globs)
             + "---\nRule.\n" for i, globs in enumerate(rules)}
    files.update({target: "" for target in targets})
    ws = make(files, profiles=("claude-code",), caseSensitiveGlobs=case_sensitive)
    opts = PROFILE.settings_of(ws)
    for target in targets:
        indexed = PROFILE.matching_rules(ws, [""], target, opts, set())
        every = []
        for rule in ws.rules_of(""):
            doc = ws.document(rule)
            if doc.rule_skip:
                continue
            hit = rule_globs(ws, rule, doc, opts.case_sensitive).first_match(
                target, opts.case_sensitive)
            if hit is not None:
                every.append((rule, False, f"paths: {hit}"))
        assert indexed == every, target


@settings(max_examples=200, deadline=None)
@given(
    globs=st.lists(st.sampled_from(GLOBS + ["src/api", "src/api/b.ts", "lib/a.py/**",
                                            "test/*.test.ts", "src/**/a.py"]),
                   min_size=1, max_size=4),
    files=st.lists(paths, min_size=1, max_size=10),
    case_sensitive=st.booleans(),
)
def test_glob_matches_from_buckets_equal_a_scan_of_every_file(
    globs: list[str], files: list[str], case_sensitive: bool
) -> None:
    """Views' `glob_matches` reads a bucket of the probes (a literal directory's range, a tail,
    a segment name): the same files as testing every probe of the scope."""
    from rulemap.globs import compile_patterns, literal_tail, required_parts, safe_expand
    from rulemap.profiles.claude_code.rules import claude_patterns, glob_matches

    rule = ".claude/rules/r.md"
    body = "---\npaths:\n" + "".join(f'  - "{g}"\n' for g in globs) + "---\nRule.\n"
    ws = make({rule: body, **{f: "" for f in files}}, profiles=("claude-code",),
              caseSensitiveGlobs=case_sensitive)
    for glob in globs:
        patterns = [p for p in (claude_patterns(e) for e in safe_expand(glob)) if p]
        cased = [p if case_sensitive else p.lower() for p in patterns]
        verdict = compile_patterns(cased).match
        every = set()
        for path in ws.files:
            probe = "/" + (path if case_sensitive else path.lower())
            for pattern in cased:
                if pattern.startswith("!"):
                    continue
                tail, parts = literal_tail(pattern), required_parts(pattern)
                if (not tail or probe.endswith(tail)) and all(p in probe for p in parts) \
                        and verdict(probe[1:]):
                    every.add(path)
        assert glob_matches(ws, rule, glob, case_sensitive) == sorted(every), glob


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.sampled_from(GLOBS + ["src/api/**/*.ts", "lib/**/test/*.py", "**/src/api",
                                     "src/*/b.ts", "a.py", "**/test/**"]),
    files=st.lists(paths, min_size=1, max_size=12),
    base=st.sampled_from(["", "src", "lib"]),
)
def test_prefiltered_keeps_what_the_plain_substring_tests_keep(
    pattern: str, files: list[str], base: str
) -> None:
    """`globs.prefiltered` skips the tests its pool already passed: the same candidates as
    testing every literal part on `"/" + path`."""
    from rulemap.globs import FileIndex, literal_tail, prefiltered, required_parts

    pattern = pattern.lstrip("!")
    index = FileIndex(files)
    pool = index.candidates(base, pattern)
    tail, parts = literal_tail(pattern), required_parts(pattern)
    plain = [c for c in pool if (not tail or c.endswith(tail))
             and all(part in "/" + c for part in parts)]
    assert prefiltered(pool, pattern) == plain


def test_the_first_files_are_matched_without_building_the_whole_index() -> None:
    """A language server's first hovers match their file rule by rule (building the file →
    rules index for one file cost 120 ms on the 20k monorepo); past `UNINDEXED_ASKS` files the
    index is built. Both give the same rules."""
    from rulemap.analysis import new_workspace
    from rulemap.readers import MemoryReader
    from rulemap.workspace.rules import _RULES_OF_FILE, UNINDEXED_ASKS

    files = {f"src/m{i}/a.ts": "" for i in range(UNINDEXED_ASKS + 2)}
    files.update({".claude/rules/ts.md": '---\npaths: ["src/**/*.ts"]\n---\nTS.\n',
                  ".claude/rules/m1.md": '---\npaths: ["src/m1/**"]\n---\nM1.\n',
                  ".claude/rules/py.md": '---\npaths: ["**/*.py"]\n---\nPy.\n'})
    ws = new_workspace(MemoryReader("/w", files))
    targets = sorted(f for f in files if f.startswith("src/"))
    direct = [ws.scoped_rules_matching(t, [""]) for t in targets[:UNINDEXED_ASKS]]
    assert ws.derived.get(_RULES_OF_FILE) is None  # not built for the first files
    assert direct[targets.index("src/m1/a.ts")] == [".claude/rules/m1.md", ".claude/rules/ts.md"]
    indexed = [ws.scoped_rules_matching(t, [""]) for t in targets]
    assert ws.derived.get(_RULES_OF_FILE) is not None
    assert indexed[:UNINDEXED_ASKS] == direct
