"""Glob matching that reads a bucket instead of every file gives what testing every file gives:
Claude Code's scoped rules through their index (`rules.rule_index`), its views' `glob_matches`
through the probes' buckets, and `globs.prefiltered` without its per-path concatenation —
random globs of every shape against random files."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
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


@settings(max_examples=300, deadline=None)
@given(
    globs=st.lists(st.sampled_from(GLOBS + ["src/api", "src/api/b.ts", "lib/a.py/**",
                                            "src/api/", "/src/a.py", "test/x.test.ts",
                                            "src/*/b.ts", "**/src/api"]),
                   min_size=1, max_size=4),
    files=st.lists(
        st.tuples(st.lists(st.sampled_from(["src", "api", "Docs", "test", "lib", "Makefile"]),
                           max_size=3), st.sampled_from(SEGMENTS))
        .map(lambda t: "/".join([*t[0], t[1]])), min_size=1, max_size=12),
    owner=st.sampled_from(["", "src"]),
)
@example(globs=["src/api/"], files=["src/api", "src/api/b.ts"], owner="")
@example(globs=["src/api", "lib/a.py/**"], files=["src/api", "src/api/b.ts", "lib/a.py"],
         owner="")
def test_rule_matches_equal_a_regex_scan_of_every_file(
    globs: list[str], files: list[str], owner: str
) -> None:
    """The default model's rule matches come pattern by pattern (a literal path or a literal
    directory's `**` straight from the file index, the rest by each pattern's own regex on
    its prefiltered candidates, shared between rules): the same files as the rule's whole
    pattern list tested on every file of its scope. (Directories here never look like file
    names: `**/*.py` picks files by their name's ending, so it does not take `a.py/x` as
    gitignore would — nor does an agent's matcher.)"""
    from rulemap.analysis import new_workspace
    from rulemap.globs import compile_patterns, safe_expand
    from rulemap.readers import MemoryReader

    base = f"{owner}/" if owner else ""
    rule = f"{base}.claude/rules/r.md"
    body = "---\npaths:\n" + "".join(f'  - "{g}"\n' for g in globs) + "---\nRule.\n"
    twin = f"{base}.claude/rules/twin.md"  # the same globs: served from the shared matches
    ws = new_workspace(MemoryReader("/w", {rule: body, twin: body, **{f: "" for f in files}}))
    patterns = [p for g in ws.document(rule).globs or [] if g.error is None for p in g.expanded]
    if not patterns:
        return
    compiled = compile_patterns(patterns)
    every = sorted(f for f in ws.files if f.startswith(base)
                   and compiled.match(f[len(base):]))
    assert ws.rule_matches(rule) == every
    assert ws.rule_matches(twin) == every
    for glob in globs:
        if glob.startswith("!"):
            continue
        one = compile_patterns(safe_expand(glob))
        assert ws.glob_matches(rule, glob) == sorted(
            f for f in ws.files if f.startswith(base) and one.match(f[len(base):])), glob


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="ab*?/.!-\\{}^$()|+ #~:,", min_size=1, max_size=12))
def test_a_glob_without_a_bracket_always_compiles(pattern: str) -> None:
    """`pattern_error` compiles only globs with a `[`: pathspec escapes everything else, so
    what it translates always compiles (or it raises while translating, which is reported),
    and translates only those with a `[` or a `\\`: without either it never raises."""
    import re

    from rulemap.globs import _translation, pattern_error

    source, _, error = _translation(pattern)
    if source is not None and error is None:
        re.compile(source)
        assert pattern_error(pattern) is None
    if "\\" not in pattern and pattern.rstrip() != "!":  # `pattern_error` need not ask
        assert error is None
    else:
        assert pattern_error(pattern) == error
    for bad in ("[z-a]", "src/[b-a].ts", "src/a\\", "! "):
        assert pattern_error(bad) is not None


def test_an_edited_rules_globs_patch_the_index_built_from_patterns() -> None:
    """The file → rules index is built pattern by pattern (`**/*.ts` shared by two rules is
    matched once); an edit of one rule's globs still patches it in place — the rule's old
    matches are put together from the shared pattern matches — and it equals a fresh one."""
    from rulemap.analysis import new_workspace
    from rulemap.readers import MemoryReader
    from rulemap.workspace.rules import _RULES_OF_FILE

    files = {"src/a.ts": "", "src/b.py": "", "lib/c.ts": "", "docs/d.md": "",
             ".claude/rules/ts.md": '---\npaths: ["**/*.ts"]\n---\nTS.\n',
             ".claude/rules/also-ts.md": '---\npaths: ["**/*.ts", "docs/**"]\n---\nTS.\n',
             ".claude/rules/not-lib.md": '---\npaths: ["**/*", "!lib/**"]\n---\nX.\n'}
    ws = new_workspace(MemoryReader("/w", dict(files)))
    index = ws.scoped_rules_index()
    assert index["lib/c.ts"] == (".claude/rules/also-ts.md", ".claude/rules/ts.md")
    assert index["src/a.ts"] == (".claude/rules/also-ts.md", ".claude/rules/not-lib.md",
                                 ".claude/rules/ts.md")
    assert index["docs/d.md"] == (".claude/rules/also-ts.md", ".claude/rules/not-lib.md")
    edited = '---\npaths: ["src/**"]\n---\nTS.\n'
    ws.reader.files[ws.abs(".claude/rules/ts.md")] = edited.encode()
    ws.update(changed=[".claude/rules/ts.md"])
    assert ws.derived.get(_RULES_OF_FILE) is index  # patched, not dropped
    fresh = new_workspace(MemoryReader("/w", {**files, ".claude/rules/ts.md": edited}))
    assert ws.scoped_rules_index() == fresh.scoped_rules_index()
    assert index["lib/c.ts"] == (".claude/rules/also-ts.md",)
    assert ".claude/rules/ts.md" in index["src/b.py"]


@settings(max_examples=300, deadline=None)
@given(
    glob=st.sampled_from(GLOBS + ["src/api", "lib/a.py/**", "src/api/", "src/*/b.ts",
                                  "src/?.ts", "**/[!a].py", "api/**", "src/**/*.ts"]),
    files=st.lists(st.lists(st.sampled_from(SEGMENTS + ["SRC", "İ.ts", "A.py"]), min_size=1,
                            max_size=4).map("/".join), min_size=1, max_size=10),
    case_sensitive=st.booleans(),
)
@example(glob="src/?.ts", files=["src/İ.ts"], case_sensitive=False)
@example(glob="**/[!a].py", files=["A.py"], case_sensitive=False)
def test_claude_codes_form_of_a_widening_glob_matches_all_the_workspace_matches(
    glob: str, files: list[str], case_sensitive: bool
) -> None:
    """Claude Code's unmatched-glob verdict takes the workspace's yes when its form of the
    glob can only widen (`_widens`): then every file the workspace matches, it matches."""
    from rulemap.profiles.claude_code.rules import _widens, glob_matches

    rule = ".claude/rules/r.md"
    body = f'---\npaths:\n  - "{glob}"\n---\nRule.\n'
    ws = make({rule: body, **{f: "" for f in files}}, profiles=("claude-code",),
              caseSensitiveGlobs=case_sensitive)
    if glob.startswith("!") or not _widens(glob, case_sensitive):
        return
    assert set(ws.glob_matches(rule, glob)) <= set(glob_matches(ws, rule, glob, case_sensitive))


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["node_modules/", "*.log", "dist", "/build", "docs/*.md",
                                    "**/tmp", "a.py", "src/", "!keep.log", "\\#x", "*.ts/",
                                    "lib/**", "Docs", "src/*.py", "!a.py"]),
                   min_size=1, max_size=5),
    files=st.lists(paths, min_size=1, max_size=12),
)
@example(lines=["src/*.py", "!a.py"], files=["src/a.py"])
def test_the_walk_ignores_what_every_level_tested_whole_ignores(
    lines: list[str], files: list[str]
) -> None:
    """The walk tests a `.gitignore`'s slash-less patterns on an entry's own name (every
    directory above it passed them): it keeps exactly the files a test of every level's
    whole path keeps."""
    from rulemap.readers.gitignore import GitignoreSpec, ignored, ignored_in_walk

    spec = GitignoreSpec.of(lines)
    specs = [("", spec)]
    for path in files:
        parts = path.split("/")
        levels = ["/".join(parts[: i + 1]) + "/" for i in range(len(parts) - 1)]
        whole = any(ignored(specs, level) for level in levels) or ignored(specs, path)
        walked = next((True for level in levels if ignored_in_walk(specs, level)), False) \
            or ignored_in_walk(specs, path)
        assert walked == whole, (lines, path)


@settings(max_examples=150, deadline=None)
@given(
    rules=st.lists(st.lists(st.sampled_from(GLOBS + ["src/api", "lib/a.py/**", "src/api/",
                                                     "src/**/*", "lib/**/*.py", "**/*.ts"]),
                            min_size=1, max_size=3), min_size=1, max_size=4),
    files=st.lists(
        st.tuples(st.lists(st.sampled_from(["src", "api", "Docs", "test", "lib"]), max_size=3),
                  st.sampled_from(SEGMENTS))
        .map(lambda t: "/".join([*t[0], t[1]])), min_size=1, max_size=10),
    case_sensitive=st.booleans(),
)
@example(rules=[["src/api"], ["**/*.ts", "src/api/"]],
         files=["src/api/a.py", "src/b.py", "lib/b.ts", "src/api"], case_sensitive=False)
def test_claude_codes_load_groups_load_what_explaining_each_file_loads(
    rules: list[list[str]], files: list[str], case_sensitive: bool
) -> None:
    """Claude Code's load groups match rules by buckets — a literal path's range and the
    candidates that are exactly a pattern's matches without a regex — and each group's
    load is what explaining any of its files gives."""
    body = {f".claude/rules/r{i}.md": "---\npaths:\n" + "".join(f'  - "{g}"\n' for g in globs)
            + "---\nRule.\n" for i, globs in enumerate(rules)}
    ws = make({**body, **{f: "" for f in files}}, profiles=("claude-code",),
              caseSensitiveGlobs=case_sensitive)
    groups = PROFILE.load_groups(ws, ".")
    assert groups is not None
    for explanation, members in groups:
        for member in members:
            alone = PROFILE.explain(ws, member, ".")
            assert [f.path for f in alone.files] == [f.path for f in explanation.files], member


@settings(max_examples=1500, deadline=None)
@given(
    pattern=st.one_of(
        st.sampled_from(GLOBS + ["src/api", "lib/a.py/**", "src/api/", "src/*/b.ts",
                                 "src/?.ts", "**/[!a].py", "a**b/*.ts", "**/x.test.*"]),
        st.text(alphabet="ab*?/.[]!", min_size=1, max_size=10)),
    path=st.lists(st.sampled_from(SEGMENTS + ["a", "b", "ab", "a.b"]), min_size=1,
                  max_size=4).map("/".join),
)
@example(pattern="**/*.py", path="lib/a.py/x")  # a directory named like a file
def test_could_match_never_rules_out_a_path_the_regex_matches(pattern: str, path: str) -> None:
    """`could_match` only looks at literal parts, as a substring test: whatever the pattern's
    regex matches passes it (so the files git ignores skip compiling only patterns that
    could not match them)."""
    from rulemap.globs import compile_patterns, could_match, pattern_error

    if pattern.startswith("!") or pattern_error(pattern) is not None:
        return
    compiled = compile_patterns([pattern])
    if compiled.match(path):
        assert could_match(compiled.patterns[0], path), (pattern, path)


@settings(max_examples=500, deadline=None)
@example(pattern="!src/**", files=["g.py"])  # `!` is a literal to Copilot, not to the index
@given(
    pattern=st.one_of(
        st.sampled_from(["**", "**/*.ts", "src/**", "src/api/**/*.py", "lib/**/*.ts",
                         "**/*.t_s", "Docs/**", "src/*/**", "*.ts", "src/**/*.test.ts",
                         "!src/**", "!**/*.ts"]),
        st.text(alphabet="ab*?/.[]_!", min_size=1, max_size=9)),
    files=st.lists(
        st.tuples(st.lists(st.sampled_from(["src", "api", "Docs", "lib", "a.ts"]), max_size=3),
                  st.sampled_from([*SEGMENTS, ".ts", "a.t_s", "b.d.ts"]))
        .map(lambda t: "/".join([*t[0], t[1]])), min_size=1, max_size=12),
)
def test_a_copilot_glob_whose_pool_is_exact_matches_its_whole_pool(
    pattern: str, files: list[str]
) -> None:
    """Copilot's `dir/**`, `dir/**/*.ts` and `**/*.ts` take the file index's candidates as
    their matches without a regex: every candidate does match the glob's regex."""
    from rulemap.globs import FileIndex, prefiltered
    from rulemap.profiles.copilot_globs import _pool_is_exact, glob_regex

    if not _pool_is_exact(pattern):
        return
    pool = prefiltered(FileIndex(files).candidates("", pattern), pattern)
    regex = glob_regex(pattern)
    assert all(regex.fullmatch(path) for path in pool), (pattern, pool)


def test_many_rules_build_the_index_at_the_first_file() -> None:
    """Matching rule by rule compiles each rule's globs (~0.7 ms a rule): past
    `UNINDEXED_RULES` rules the first file asked builds the index instead (a first hover over
    1,600 rules took 1.2 s rule by rule, the index 0.2 s). The rules are the same."""
    from rulemap.analysis import new_workspace
    from rulemap.readers import MemoryReader
    from rulemap.workspace.rules import _RULES_OF_FILE, UNINDEXED_RULES

    def workspace(rules: int) -> Any:
        files: dict[str, str] = {f"src/m{i}/a.ts": "" for i in range(rules)}
        files.update({f".claude/rules/r{i}.md": f'---\npaths: ["src/m{i}/**"]\n---\nR.\n'
                      for i in range(rules)})
        return new_workspace(MemoryReader("/w", files))

    few = workspace(UNINDEXED_RULES)
    assert few.scoped_rules_matching("src/m3/a.ts", [""]) == [".claude/rules/r3.md"]
    assert few.derived.get(_RULES_OF_FILE) is None  # rule by rule
    many = workspace(UNINDEXED_RULES + 1)
    assert many.scoped_rules_matching("src/m3/a.ts", [""]) == [".claude/rules/r3.md"]
    assert many.derived.get(_RULES_OF_FILE) is not None  # the index, at once
