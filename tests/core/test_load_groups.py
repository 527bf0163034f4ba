"""`Profile.load_groups` of Gemini CLI, Copilot, Cursor and Mastra (profiles/place_groups.py),
and of Claude Code (profiles/claude_code/groups.py, its grouping kept between questions):
on generated workspaces — instruction files nested at various depths, rules whose globs match
some files, none, or overlap, files at the root and in hidden directories, a cwd below the
root — the groups cover every workspace file exactly once, and every file's own explanation
loads what its group's explanation loads (paths, reasons, importers, cut flags, sizes, texts,
what is skipped and left out)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rulemap.analysis import new_workspace
from rulemap.model import Explanation
from rulemap.profiles import get_profile, validate_options
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

DIRS = ["", "a", "a/b", "a/b/c", "a/x.ts", "a/x.ts/d", ".hidden", ".hidden/e", "src",
        "src/api", "src/api/v1", "lib", "lib/a.py", "Docs", "B"]
NAMES = ["f.ts", "g.py", "README.md", "x.test.ts", "Upper.TS", "z", "h.tsx", ".env"]
CWDS = ["", "a", "a/b", "src", "src/api", ".hidden", "nowhere"]
GLOBS = ["**", "*", "**/*", "*.ts", "**/*.ts", "src/**", "src", "src/", "**/*.py", "a/**/*.ts",
         "{src,lib}/**", "x.ts", "*.{ts,tsx}", "api/*", "lib/a.py", "a/b/**", "**/api/**",
         "Docs/*.md", "nothing/**", "!src/**", "[", "*.TS", "b/**"]
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _files() -> st.SearchStrategy[list[str]]:
    return st.lists(st.tuples(st.sampled_from(DIRS), st.sampled_from(NAMES)).map(
        lambda t: f"{t[0]}/{t[1]}" if t[0] else t[1]), min_size=1, max_size=14)


def _at(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def _workspace(files: Mapping[str, str], profile: str, options: Mapping[str, Any],
               home: Mapping[str, str] | None = None,
               symlinks: Mapping[str, str] | None = None) -> Workspace:
    return new_workspace(
        MemoryReader("/w", dict(files), symlinks),
        profile_options=validate_options({profile: dict(options)}, "test"),
        home_reader=MemoryReader("/h", home) if home is not None else None,
    )


def _load(e: Explanation) -> tuple[object, ...]:
    """What a load is, without the target's own words (its notes name it)."""
    return (tuple(e.files), tuple(e.left_out), tuple(e.skipped), e.requested_chars, e.budget,
            e.notice)


def _check(ws: Workspace, name: str, cwd: str) -> int:
    """Every file in exactly one group, each loading what its group's explanation loads;
    the number of groups."""
    profile = get_profile(name)
    groups = profile.load_groups(ws, cwd)
    assert groups is not None, name
    members = [path for _, group in groups for path in group]
    assert sorted(members) == sorted(ws.files), "every file exactly once"
    for explanation, group in groups:
        assert group, "no empty group"
        assert explanation.target == group[0]
        expected = _load(explanation)
        for path in group:
            assert _load(profile.explain(ws, path, cwd)) == expected, (name, path, cwd)
    return len(groups)


# ----- Gemini CLI: the start-up load, then context files just in time below the cwd ---------

@SETTINGS
@given(files=_files(), places=st.lists(st.sampled_from(DIRS), max_size=5),
       cwd=st.sampled_from(CWDS), jit=st.booleans(), also_agents=st.booleans(),
       git=st.sampled_from([None, "a", "src"]), home=st.booleans())
@example(files=["a/b/f.ts", "a/g.py", "f.ts"], places=["", "a/b"], cwd="a", jit=True,
         also_agents=False, git=None, home=False)
def test_gemini_groups_load_what_each_file_loads(
    files: list[str], places: list[str], cwd: str, jit: bool, also_agents: bool,
    git: str | None, home: bool,
) -> None:
    tree = {path: "" for path in files}
    for i, directory in enumerate(places):
        tree[_at(directory, "GEMINI.md")] = f"# {directory or 'root'}\n@./imported.md\n" if (
            i % 2) else f"# {directory or 'root'}\n"
        tree[_at(directory, "imported.md")] = "Imported.\n"
        if also_agents and i % 3 == 0:
            tree[_at(directory, "AGENTS.md")] = "agents\n"
    if git is not None:
        tree[f"{git}/.git"] = "gitdir: elsewhere"
    names = ["GEMINI.md", "AGENTS.md"] if also_agents else ["GEMINI.md"]
    ws = _workspace(tree, "gemini", {"jitContext": jit, "fileNames": names},
                    home={".gemini/GEMINI.md": "global\n"} if home else None)
    groups = _check(ws, "gemini", cwd)
    if not jit:
        assert groups == 1


def test_gemini_groups_follow_the_context_files_below_the_cwd() -> None:
    tree = {"GEMINI.md": "root\n", "a/GEMINI.md": "a\n", "a/b/GEMINI.md": "b\n", "f.ts": "",
            "a/f.ts": "", "a/c/f.ts": "", "a/b/f.ts": "", "a/b/d/f.ts": "", "x/f.ts": ""}
    ws = _workspace(tree, "gemini", {})
    groups = get_profile("gemini").load_groups(ws, "a")
    assert groups is not None
    by_first = sorted(sorted(group) for _, group in groups)
    # outside the cwd; inside with nothing below the cwd; below a/b
    assert by_first == [["GEMINI.md", "f.ts", "x/f.ts"],
                        ["a/GEMINI.md", "a/c/f.ts", "a/f.ts"],
                        ["a/b/GEMINI.md", "a/b/d/f.ts", "a/b/f.ts"]]
    assert _check(ws, "gemini", "a") == 3


def test_gemini_groups_with_a_symlinked_context_file() -> None:
    tree = {"GEMINI.md": "root\n", "a/f.ts": "", "a/b/f.ts": "", "f.ts": ""}
    ws = _workspace(tree, "gemini", {}, symlinks={"a/GEMINI.md": "../GEMINI.md",
                                                 "a/b/GEMINI.md": "../GEMINI.md"})
    for cwd in ("", "a", "a/b"):
        _check(ws, "gemini", cwd)


# ----- Copilot: the nearest AGENTS.md and the `applyTo` files that apply --------------------

def _copilot_rule(globs: list[str], exclude: str | None) -> str:
    head = "---\napplyTo: \"" + ",".join(globs) + "\"\n"
    if exclude:
        head += f"excludeAgent: {exclude}\n"
    return head + "---\nDo this.\n"


@SETTINGS
@given(files=_files(), places=st.lists(st.sampled_from(DIRS), max_size=5),
       rules=st.lists(st.tuples(st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3),
                                st.sampled_from([None, "coding-agent", "code-review"])),
                      max_size=4),
       cwd=st.sampled_from(CWDS),
       agent=st.sampled_from(["coding-agent", "code-review", "vscode-chat"]),
       use_agents=st.booleans(), extras=st.booleans())
@example(files=["src/f.ts", "a/b/g.py", "f.ts"], places=["", "a"],
         rules=[(["*.ts"], None), (["**/*.py", "src/**"], None)], cwd="", agent="coding-agent",
         use_agents=True, extras=True)
def test_copilot_groups_load_what_each_file_loads(
    files: list[str], places: list[str], rules: list[tuple[list[str], str | None]], cwd: str,
    agent: str, use_agents: bool, extras: bool,
) -> None:
    tree = {path: "" for path in files}
    for directory in places:
        tree[_at(directory, "AGENTS.md")] = f"agents of {directory or 'root'}\n"
    for i, (globs, exclude) in enumerate(rules):
        tree[f".github/instructions/r{i}.instructions.md"] = _copilot_rule(globs, exclude)
    if extras:
        tree[".github/copilot-instructions.md"] = "Repository-wide.\n"
        tree[".github/instructions/bare.instructions.md"] = "No applyTo.\n"
        tree[".github/instructions/empty.instructions.md"] = "---\napplyTo: \"**/*.ts\"\n---\n"
        tree["CLAUDE.md"] = "claude\n"
        tree["GEMINI.md"] = "gemini\n"
    ws = _workspace(tree, "copilot", {"agent": agent, "useAgentsMdFile": use_agents})
    _check(ws, "copilot", cwd)


# ----- Cursor: nested AGENTS.md and `.cursor/rules` folders, auto-attached globs ---------

_KINDS = st.sampled_from(["always", "auto", "requested", "manual", "invalid", "md"])


def _cursor_rule(kind: str, globs: list[str]) -> str:
    written = ",".join(globs)
    return {
        "always": "---\nalwaysApply: true\n---\nAlways.\n",
        "auto": f"---\nglobs: {written}\n---\nAuto [see](mdc:src/f.ts).\n",
        "requested": "---\ndescription: when migrating\n---\nRequested.\n",
        "manual": "Manual.\n",
        "invalid": "---\nglobs: [unclosed\n---\nBroken.\n",
        "md": f"---\nglobs: {written}\n---\nA .md rule.\n",
    }[kind]


@SETTINGS
@given(files=_files(), places=st.lists(st.sampled_from(DIRS), max_size=4),
       rules=st.lists(st.tuples(st.sampled_from(DIRS), _KINDS,
                                st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3)),
                      max_size=5),
       cwd=st.sampled_from(CWDS), nested=st.booleans(), md_rules=st.booleans(),
       links=st.booleans(), legacy=st.booleans())
@example(files=["a/x.ts/d/z", "src/f.ts", "lib/a.py/g.py", "Upper.TS"], places=["", "a"],
         rules=[("", "auto", ["x.ts"]), ("", "auto", ["*.ts", "!src/**"]),
                ("a", "auto", ["*.ts"]), ("a", "always", ["**"])],
         cwd="", nested=True, md_rules=False, links=True, legacy=True)
def test_cursor_groups_load_what_each_file_loads(
    files: list[str], places: list[str], rules: list[tuple[str, str, list[str]]], cwd: str,
    nested: bool, md_rules: bool, links: bool, legacy: bool,
) -> None:
    tree = {path: "" for path in files}
    for directory in places:
        tree[_at(directory, "AGENTS.md")] = f"agents of {directory or 'root'}\n"
    for i, (owner, kind, globs) in enumerate(rules):
        ext = "md" if kind == "md" else "mdc"
        tree[_at(owner, f".cursor/rules/r{i}.{ext}")] = _cursor_rule(kind, globs)
    if legacy:
        tree[".cursorrules"] = "Legacy.\n"
    ws = _workspace(tree, "cursor", {"nestedAgentsMd": nested, "mdRules": md_rules,
                                     "mdcLinks": links})
    _check(ws, "cursor", cwd)


def test_cursor_globs_matching_a_directory_attach_to_the_files_below_it() -> None:
    """Gitignore-style, `*.ts` matches a directory `x.ts`, and with it every file below."""
    tree = {"a/x.ts/d/z": "", "a/y.py": "", ".cursor/rules/ts.mdc": _cursor_rule("auto", ["*.ts"])}
    ws = _workspace(tree, "cursor", {})
    assert [f.path for f in get_profile("cursor").explain(ws, "a/x.ts/d/z", "").files] == [
        ".cursor/rules/ts.mdc"]
    assert _check(ws, "cursor", "") == 2


# ----- Mastra: the deepest directory on the way up holding an instruction file ------------

@SETTINGS
@given(files=_files(),
       places=st.lists(st.tuples(st.sampled_from(DIRS),
                                 st.sampled_from(["AGENTS.md", "CLAUDE.md", "CONTEXT.md"])),
                       max_size=6),
       cwd=st.sampled_from(CWDS), nearest=st.booleans(), enabled=st.booleans(),
       tokens=st.sampled_from([1000, 3]), ignored=st.booleans(), empty=st.booleans())
@example(files=["a/b/f.ts", "a/agents.md", "f.ts"], places=[("", "AGENTS.md"), ("a", "CONTEXT.md")],
         cwd="", nearest=False, enabled=True, tokens=3, ignored=True, empty=True)
def test_mastra_groups_load_what_each_file_loads(
    files: list[str], places: list[tuple[str, str]], cwd: str, nearest: bool, enabled: bool,
    tokens: int, ignored: bool, empty: bool,
) -> None:
    tree = {path: "" for path in files}
    for i, (directory, name) in enumerate(places):
        tree[_at(directory, name)] = "" if empty and i == 0 else (
            f"Instructions of {directory or 'root'}.\nA second line here.\n")
    options: dict[str, Any] = {"nearestOnly": nearest, "enabled": enabled, "maxTokens": tokens}
    if ignored and places:
        options["ignoredInstructionPaths"] = [_at(*places[-1])]
    ws = _workspace(tree, "mastra", options)
    _check(ws, "mastra", cwd)


def test_mastra_groups_with_a_symlink_and_a_directory_named_like_an_instruction_file() -> None:
    tree = {"AGENTS.md": "root\n", "a/f.ts": "", "a/b/f.ts": "", "c/CLAUDE.md/x": "",
            "c/f.ts": ""}
    ws = _workspace(tree, "mastra", {}, symlinks={"a/CLAUDE.md": "../AGENTS.md"})
    assert _check(ws, "mastra", "") >= 3


def test_a_monorepo_shaped_tree_gives_few_groups() -> None:
    """Many files, few places: the groups are the places, not the files."""
    tree: dict[str, str] = {}
    for p in range(8):
        for d in range(5):
            for f in range(6):
                tree[f"packages/p{p}/src/d{d}/f{f}.ts"] = ""
        tree[f"packages/p{p}/AGENTS.md"] = f"package {p}\n"
        tree[f"packages/p{p}/GEMINI.md"] = f"package {p}\n"
    tree["AGENTS.md"] = "root\n"
    tree[".github/instructions/ts.instructions.md"] = _copilot_rule(["**/*.ts"], None)
    tree[".cursor/rules/p0.mdc"] = _cursor_rule("auto", ["packages/p0/**"])
    ws = new_workspace(MemoryReader("/w", tree))
    assert len(ws.files) == 259
    # the root, each package's GEMINI.md; with the cwd in p1, outside it or inside
    assert (_check(ws, "gemini", ""), _check(ws, "gemini", "packages/p1")) == (9, 2)
    # each package's AGENTS.md × whether `**/*.ts` matches, and the root's
    assert _check(ws, "copilot", "") == 17
    # each package's AGENTS.md (p0 is also all of `packages/p0/**`), and the root's
    assert _check(ws, "cursor", "") == 9
    # each AGENTS.md alone (a path with its name is used directly), each package, the root
    assert _check(ws, "mastra", "") == 18


# ----- Claude Code: its groups are kept between questions, and follow edits -----------------

CLAUDE_GLOBS = ["src/**", "**/*.ts", "a/**", "lib/*.py", "nothing/**", "**/*.{ts,py}"]


def _claude_files(files: list[str], rules: list[str], memory: list[str]) -> dict[str, str]:
    tree = {path: "" for path in files}
    for directory in memory:
        tree[_at(directory, "CLAUDE.md")] = f"memory of {directory or 'the root'}\n"
    for i, glob in enumerate(rules):
        tree[f".claude/rules/r{i}.md"] = f"---\npaths: ['{glob}']\n---\nrule {i}\n"
    return tree


def _groups_of(ws: Workspace, cwd: str) -> list[tuple[str, list[str]]]:
    groups = get_profile("claude-code").load_groups(ws, cwd)
    assert groups is not None
    return sorted((e.target, sorted(members)) for e, members in groups)


@SETTINGS
@given(files=_files(), rules=st.lists(st.sampled_from(CLAUDE_GLOBS), max_size=3),
       memory=st.lists(st.sampled_from(DIRS), max_size=3), cwd=st.sampled_from(["", "a"]),
       edits=st.lists(st.tuples(st.sampled_from(["glob", "text", "create"]),
                                st.integers(0, 10)), max_size=4))
def test_claude_code_groups_kept_between_questions_follow_edits(
    files: list[str], rules: list[str], memory: list[str], cwd: str,
    edits: list[tuple[str, int]],
) -> None:
    tree = _claude_files(files, rules, memory)
    ws = _workspace(tree, "claude-code", {})
    assert _groups_of(ws, cwd) == _groups_of(ws, cwd)  # the second answer is the kept one
    for kind, n in edits:
        if kind == "glob" and rules:
            key = f".claude/rules/r{n % len(rules)}.md"
            tree[key] = f"---\npaths: ['{CLAUDE_GLOBS[n % len(CLAUDE_GLOBS)]}']\n---\nedited\n"
            change = {"changed": [key]}
        elif kind == "text" and memory:
            key = _at(memory[n % len(memory)], "CLAUDE.md")
            tree[key] = f"edited {n}\n"
            change = {"changed": [key]}
        else:
            key = _at(DIRS[n % len(DIRS)], "CLAUDE.md")
            if key in tree:
                continue
            tree[key] = "new memory\n"
            change = {"created": [key]}
        ws.reader.files[ws.abs(key)] = tree[key].encode()
        ws.update(**change)
        fresh = _workspace(tree, "claude-code", {})
        assert _groups_of(ws, cwd) == _groups_of(fresh, cwd), (kind, key)
        _check(ws, "claude-code", cwd)


def test_claude_code_globs_matching_a_directory_attach_to_the_files_below_it() -> None:
    # gitignore-style: `*.py` matches the directory `x.py/`, `**/*.ts` the directory `a/b.ts/`
    tree = _claude_files(["x.py/c.txt", "a/b.ts/d.md", "a/e.ts", "f.txt"], ["*.py", "**/*.ts"], [])
    ws = _workspace(tree, "claude-code", {})
    groups = {e.target: ([f.path for f in e.files], sorted(m))
              for e, m in get_profile("claude-code").load_groups(ws, "") or []}
    rules = {path: files for files, members in groups.values() for path in members}
    assert rules["x.py/c.txt"] == [".claude/rules/r0.md"]
    assert rules["a/b.ts/d.md"] == [".claude/rules/r1.md"]
    assert rules["a/e.ts"] == [".claude/rules/r1.md"]
    assert rules["f.txt"] == []
    _check(ws, "claude-code", "")


@SETTINGS
@given(files=_files(), rules=st.lists(st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3),
                                      max_size=8),
       memory=st.lists(st.sampled_from(DIRS), max_size=3), cwd=st.sampled_from(["", "a", "src"]),
       case_sensitive=st.booleans())
@example(files=["src/f.ts", "src/api/g.py", "a/x.ts/d/z", "B/Upper.TS", "f.ts"],
         rules=[["*.ts"], ["*.ts"], ["*.ts", "src/**"], ["src/**"], ["!src/**"], ["*.TS"]],
         memory=["", "src"], cwd="", case_sensitive=False)
def test_claude_code_groups_with_rules_sharing_globs_load_what_each_file_loads(
    files: list[str], rules: list[list[str]], memory: list[str], cwd: str,
    case_sensitive: bool,
) -> None:
    """Rules repeating one another's globs (each distinct glob is matched once), splitting
    and not splitting the files others matched, negations, both letter-case settings: the
    groups cover every file once, each file loads what its group loads, and a group is every
    file with one load. (A scoped rule's note names the first of its globs that matches the
    group's first file, which for a rule of several globs may not be the member's: left out
    of the comparison.)"""
    tree = _claude_files(files, [], memory)
    for i, globs in enumerate(rules):
        written = ", ".join(f"'{g}'" for g in globs)
        tree[f".claude/rules/r{i}.md"] = f"---\npaths: [{written}]\n---\nrule {i}\n"
    ws = _workspace(tree, "claude-code", {"caseSensitiveGlobs": case_sensitive})
    profile = get_profile("claude-code")
    groups = profile.load_groups(ws, cwd) or []
    assert sorted(p for _, members in groups for p in members) == sorted(ws.files)
    loads = [_unnoted(e) for e, _ in groups]
    for load, (_, members) in zip(loads, groups, strict=True):
        for path in members:
            assert _unnoted(profile.explain(ws, path, cwd)) == load, path
    assert len(set(map(repr, loads))) == len(loads), "two groups with one load"


def _unnoted(e: Explanation) -> tuple[object, ...]:
    files = tuple(replace(f, note=None) for f in e.files)
    return (files, *_load(e)[1:])
