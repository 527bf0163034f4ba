"""An agent's facts live in its profile and nowhere else (docs/architecture.md, invariant 5).

The facts are read from the registry itself — each profile's name, the literal file and
directory names of its `watched_globs`, the directories its session logs live in, and the
numbers its options start from — so a new agent's facts are held as soon as it is registered.
Every module outside `profiles/` is parsed, and a string it spells (docstrings aside: prose
may explain an agent) or a number it writes must not be one of them: such a module would be
thinking in one agent's terms, and a second agent would get the first one's answer.

The same holds for how an agent writes things in a document — the default model's `@path`
import pattern and the `paths` key of its rules (handed to the parser as `Layout.syntax`),
Cursor's `mdc:` links (`Profile.own_links`) — and for its numbers written as text
(`40,000 characters`). And no check imports an agent's module: checks ask the profile
interface (`profiles/base.py`) and the registry (`rulemap.profiles`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rulemap.analysis import new_workspace
from rulemap.profiles import DEFAULT_PROFILE, PROFILES
from rulemap.profiles.base import options_of
from rulemap.profiles.cursor.agents_md import LINK_SCHEME
from rulemap.readers import MemoryReader

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "rulemap"


def _names() -> set[str]:
    """Literal path segments an agent reads: `AGENTS.md`, `.claude`, `.cursorrules`, …"""
    out: set[str] = set()
    for profile in PROFILES.values():
        globs = [*profile.watched_globs]
        if profile.transcript_format is not None:
            globs.extend(profile.transcript_format.log_dirs)
        for glob in globs:
            out.update(s for s in glob.split("/") if "*" not in s and "." in s)
    return out


def _numbers() -> set[int]:
    """The limits agents start from (budgets, sizes): option defaults of four digits or more."""
    return {
        o.default for p in PROFILES.values() for o in p.options
        if isinstance(o.default, int) and not isinstance(o.default, bool) and o.default >= 1000
        and o.default != 1000  # a round thousand is too common to be anyone's fact
    }


def _syntax() -> tuple[set[str], set[str]]:
    """How agents write things in a document: the patterns and prefixes a string must not
    contain (the default model's import pattern, Cursor's link scheme), and the keys it must
    not be (the default model's globs key)."""
    default = PROFILES[DEFAULT_PROFILE]
    layout = default.layout(options_of(new_workspace(MemoryReader("/w", {})), default))
    assert layout is not None and layout.syntax.imports is not None
    return {layout.syntax.imports.token.pattern, LINK_SCHEME}, {layout.syntax.globs_key}


NAMES = _names()
PROFILE_NAMES = set(PROFILES)
NUMBERS = _numbers()
SPELLED, KEYS = _syntax()
_SEGMENTS = re.compile(r"[\s/`'\"(),:;=*~]+")
# a number written in prose: `40,000` or `32000`
_WRITTEN_NUMBER = re.compile(
    r"(?<![\d,.])[1-9]\d{0,2}(?:,\d{3})+(?![\d,])|(?<![\d,.])[1-9]\d{3,}(?![\d,])")
# `paths` is also a key of Rulemap's own JSON — session steps, the check cache's records, the
# repository map — which no agent's frontmatter decides
OWN_PATHS_KEY = {"session/transcripts.py", "readers/check_store.py", "readers/recording.py",
                 "repo_map/__init__.py"}


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _outside_profiles() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(PACKAGE).parts[0] != "profiles"
    )


def facts_in(source: str, keys: bool = True) -> list[str]:
    """Each agent fact `source` spells, as `line: value` (`keys`: a frontmatter key counts)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in skip:
            continue
        value = node.value
        if isinstance(value, str):
            segments = set(_SEGMENTS.split(value))
            hits = (segments & NAMES) | (segments & PROFILE_NAMES)
            hits |= {s for s in SPELLED if s in value}
            if keys and value in KEYS:
                hits.add(value)
            hits |= {n for n in _WRITTEN_NUMBER.findall(value)
                     if int(n.replace(",", "")) in NUMBERS}
            if hits:
                found.append(f"{node.lineno}: {sorted(hits)} in {value[:80]!r}")
        elif isinstance(value, int) and not isinstance(value, bool) and value in NUMBERS:
            found.append(f"{node.lineno}: {value}")
    return found


def test_the_facts_are_read_from_the_registry() -> None:
    """The scan knows the facts it must (so it can fail)."""
    assert {"AGENTS.md", "CLAUDE.md", ".claude", "GEMINI.md", ".cursor"} <= NAMES
    assert {"cogitator", "claude-code", "codex"} <= PROFILE_NAMES
    assert {32000, 32768} <= NUMBERS
    assert facts_in('RULES = ".claude/rules/"\nLIMIT = 32000\nDEFAULT = "cogitator"\n') == [
        "1: ['.claude'] in '.claude/rules/'", "2: 32000", "3: ['cogitator'] in 'cogitator'",
    ]
    assert facts_in('"""Reads AGENTS.md (prose)."""\nx = "instructions"\n') == []


def test_the_syntax_facts_are_read_from_the_profiles() -> None:
    """The scan knows how the agents write things (so it can fail on the code that spelled
    them before they moved to their profiles)."""
    assert {"paths"} == KEYS and "mdc:" in SPELLED
    assert facts_in('_IMPORT = re.compile(r"@((?:\\\\ |[^\\s])+)")\n') == [
        "1: ['@((?:\\\\\\\\ |[^\\\\s])+)'] in '@((?:\\\\\\\\ |[^\\\\s])+)'"]
    assert facts_in('if "paths" not in data:\n    pass\n') == ["1: ['paths'] in 'paths'"]
    assert facts_in('if "paths" not in data:\n    pass\n', keys=False) == []
    assert facts_in('if "mdc:" in text:\n    pass\n') == ["1: ['mdc:'] in 'mdc:'"]
    assert facts_in('S = "over its size warning (Claude Code: 40,000 characters)"\n') == [
        "1: ['40,000'] in 'over its size warning (Claude Code: 40,000 characters)'"]
    assert facts_in('S = "`paths` lists globs; 1,000 files, 2026, 40,0000, 040000"\n') == []


@pytest.mark.parametrize(
    "path", _outside_profiles(), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_no_agent_fact_outside_profiles(path: Path) -> None:
    relative = path.relative_to(PACKAGE).as_posix()
    found = facts_in(path.read_text(encoding="utf-8"), keys=relative not in OWN_PATHS_KEY)
    assert not found, (
        f"{path.relative_to(PACKAGE)} spells agent facts (move them to the agent's profile, "
        f"or ask the profile / the registry): {found}"
    )


# ----- no check imports an agent's module ---------------------------------------------------


def _agent_modules() -> set[str]:
    """The first name under `rulemap.profiles` of each registered agent's own code: its package
    (`cursor`) or module (`copilot`, with its `copilot_*` helpers)."""
    return {type(p).__module__.split(".")[2] for p in PROFILES.values()
            if type(p).__module__.startswith("rulemap.profiles.")}


AGENT_MODULES = _agent_modules()


def _is_agents(name: str) -> bool:
    first = name.split(".", 1)[0]
    return any(first == m or first.startswith(m + "_") for m in AGENT_MODULES)


def agent_imports(source: str) -> list[str]:
    """Each import of an agent's module in `source` (in a function or under TYPE_CHECKING too),
    as `line: module`."""
    found: list[tuple[int, str]] = []
    prefix = "rulemap.profiles."
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
            if node.module == "rulemap.profiles":
                names = [f"{node.module}.{a.name}" for a in node.names]
        found += [(node.lineno, n) for n in names
                  if n.startswith(prefix) and _is_agents(n[len(prefix):])]
    return [f"{line}: {name}" for line, name in sorted(found)]


def test_the_agent_import_scan_can_fail() -> None:
    assert {"cursor", "claude_code", "cogitator", "copilot"} <= AGENT_MODULES
    assert agent_imports(
        "def f():\n    from rulemap.profiles.cursor.agents_md import mdc_links\n"
        "from rulemap.profiles import copilot_globs, PROFILES\n"
        "import rulemap.profiles.claude_code.options\n"
    ) == ["2: rulemap.profiles.cursor.agents_md", "3: rulemap.profiles.copilot_globs",
          "4: rulemap.profiles.claude_code.options"]
    assert agent_imports("from rulemap.profiles import PROFILES\n"
                         "from rulemap.profiles.base import Profile, selected\n"
                         "from rulemap.profiles.documents import read_documents\n") == []


@pytest.mark.parametrize(
    "path", sorted(p for p in (PACKAGE / "checks").rglob("*.py") if "__pycache__" not in p.parts),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_no_check_imports_an_agents_module(path: Path) -> None:
    found = agent_imports(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(PACKAGE)} imports an agent's module (ask the profile interface, "
        f"profiles/base.py, or the registry, rulemap.profiles): {found}"
    )


# ----- the findings every agent's files can get, written once ----------------------------------

BASE = PACKAGE / "profiles" / "base.py"


def copied_findings(source: str) -> list[str]:
    """Each `Finding(...)` in `source` that `profiles/base.py` writes for everyone: an empty
    file, an invalid glob, a file that cannot be read (an error at its start; a dangling link's
    warning and an unreadable import target are other findings)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "Finding" and len(node.args) >= 4):
            continue
        span, severity, code = node.args[1], node.args[2], node.args[3]
        if not (isinstance(code, ast.Constant) and isinstance(severity, ast.Constant)):
            continue
        if code.value in ("empty-instructions", "invalid-glob") or (
            code.value == "unreadable-file" and severity.value == "error"
            and ast.unparse(span) == "Span.at(0, 0)"
        ):
            found.append(f"{node.lineno}: {code.value}")
    return found


def test_the_copied_finding_scan_can_fail() -> None:
    before = '''
def _plain_findings(ws, key, lint):
    doc = ws.document(key)
    if doc.unreadable:
        return [Finding(key, Span.at(0, 0), "error", "unreadable-file",
                        f"`{key}` cannot be used: {doc.unreadable}. Copilot skips it.")]
    if not doc.text.strip():
        return [Finding(key, Span.at(0, 0, len(doc.lines[0])), "warning", "empty-instructions",
                        "this instructions file is empty; add content or delete it")]
    return [Finding(key, ref.span, "error", "unreadable-file", "an import target"),
            Finding(key, Span.at(0, 0), "warning", "unreadable-file", "a dangling link")]
'''
    assert copied_findings(before) == ["5: unreadable-file", "8: empty-instructions"]
    assert copied_findings(BASE.read_text(encoding="utf-8")) != []  # where they are written


@pytest.mark.parametrize(
    "path", sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts and p != BASE),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_the_shared_findings_are_written_once(path: Path) -> None:
    found = copied_findings(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(PACKAGE)} writes a finding every agent's files can get (call "
        f"profiles/base.py's unreadable_file, empty_file, unusable_file or invalid_glob): {found}"
    )
