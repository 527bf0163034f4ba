"""Runs every check family over a workspace, then each selected profile's own findings, then
applies suppressions and configuration.

The families here are about the files themselves (bytes, frontmatter, globs, import tokens,
the import graph, trust); what an agent's loading does to them (a budget that cuts, a file it
never reads, a file named as its own where it never looks) is the selected profiles' to say
(`Profile.findings`, `Profile.misplaced`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from rulemap.globs import compile_patterns
from rulemap.model import Finding
from rulemap.profiles import default_name
from rulemap.profiles.base import selected
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import RuleInfo, Workspace

Family = Callable[["Workspace"], list[Finding]]


class _Family:
    """A check family, its module imported when it first runs: a family whose code the
    configuration turns off costs not even its import (tests/core/test_startup_imports.py).
    `load` holds the import statement, so the import graph still sees it
    (tests/core/test_import_circles.py); `name` is `module.function`."""

    __slots__ = ("_load", "_run", "name")

    def __init__(self, name: str, load: Callable[[], Family]) -> None:
        self.name = name
        self._load = load
        self._run: Family | None = None

    def __call__(self, ws: Workspace) -> list[Finding]:
        if self._run is None:
            self._run = self._load()
        return self._run(ws)

    def __repr__(self) -> str:
        return f"<check family {self.name}>"


def _files() -> Family:
    from rulemap.checks import files

    return files.check


def _frontmatter() -> Family:
    from rulemap.checks import frontmatter

    return frontmatter.check


def _import_tokens() -> Family:
    from rulemap.checks import imports

    return imports.document_check


def _import_graph() -> Family:
    from rulemap.checks import imports

    return imports.graph_check


def _stale_reference_document() -> Family:
    from rulemap.checks import stale_reference

    return stale_reference.document_check


def _stale_reference_graph() -> Family:
    from rulemap.checks import stale_reference

    return stale_reference.graph_check


def _trust() -> Family:
    from rulemap.checks import trust

    return trust.check


def _loaded_twice() -> Family:
    from rulemap.checks import loaded_twice

    return loaded_twice.check


def _link_only() -> Family:
    from rulemap.checks import link_only

    return link_only.check


def _duplicate_text() -> Family:
    from rulemap.checks import duplicate_text

    return duplicate_text.check


def _drifted_copy() -> Family:
    from rulemap.checks import drifted_copy

    return drifted_copy.check


def _stale_command() -> Family:
    from rulemap.checks import stale_command

    return stale_command.check


def _name_case() -> Family:
    from rulemap.checks import name_case

    return name_case.check


FILES = _Family("files.check", _files)
FRONTMATTER = _Family("frontmatter.check", _frontmatter)
IMPORT_TOKENS = _Family("imports.document_check", _import_tokens)
IMPORT_GRAPH = _Family("imports.graph_check", _import_graph)
STALE_REFERENCE_DOCUMENT = _Family("stale_reference.document_check",
                                   _stale_reference_document)
STALE_REFERENCE_GRAPH = _Family("stale_reference.graph_check", _stale_reference_graph)
TRUST = _Family("trust.check", _trust)
LOADED_TWICE = _Family("loaded_twice.check", _loaded_twice)
LINK_ONLY = _Family("link_only.check", _link_only)
DUPLICATE_TEXT = _Family("duplicate_text.check", _duplicate_text)
DRIFTED_COPY = _Family("drifted_copy.check", _drifted_copy)
STALE_COMMAND = _Family("stale_command.check", _stale_command)
NAME_CASE = _Family("name_case.check", _name_case)

# Each family says what its findings about a document depend on. Per-document families read
# only that document (and the file list): the language server recomputes them on every edit of
# it, at once. Graph-wide families read the import graph, the configuration or every agent's
# loads: they come from the whole check, which runs off the editor's event loop; until it has
# run again, an edited document keeps their last findings (`Checked.graph`).
PER_DOCUMENT: tuple[Family, ...] = (FILES, FRONTMATTER, IMPORT_TOKENS, STALE_REFERENCE_DOCUMENT)
GRAPH_WIDE: tuple[Family, ...] = (
    IMPORT_GRAPH, TRUST, LOADED_TWICE, LINK_ONLY, DUPLICATE_TEXT, DRIFTED_COPY,
    STALE_REFERENCE_GRAPH, STALE_COMMAND, NAME_CASE)
# The families that emit one code only: when the configuration turns it off (`[severity]
# stale-command = "off"`) the family does not run at all — a check nobody wants costs nothing,
# not even its module's import. (tests/core/test_check_registry.py holds each to emitting that
# code alone)
ONE_CODE: Final[dict[Family, str]] = {
    DUPLICATE_TEXT: "duplicate-text", DRIFTED_COPY: "drifted-copy",
    STALE_REFERENCE_DOCUMENT: "stale-reference", STALE_REFERENCE_GRAPH: "stale-reference",
    STALE_COMMAND: "stale-command", NAME_CASE: "name-case"}


@record(frozen=True)
class Checked:
    """A whole check's findings, finalized: all of them, and the graph-wide part alone (what an
    edited document keeps from it until the next whole check; docs/architecture.md)."""

    all: list[Finding]
    graph: list[Finding]


def run_checks(ws: Workspace) -> list[Finding]:
    return finalize(ws, [*_per_document(ws), *_graph_wide(ws)])


def run_checks_split(ws: Workspace, between: Callable[[], None] | None = None) -> Checked:
    """`run_checks`, and its graph-wide findings apart (the language server's whole check).
    `between` is called before each family and each agent's findings: the language server's
    way to stop a check it no longer wants (it raises) where no derived value is half made."""
    step = between if between is not None else _nothing
    graph = _graph_wide(ws, step)
    return Checked(finalize(ws, [*_per_document(ws, step), *graph]), finalize(ws, graph))


def _nothing() -> None:
    pass


def _per_document(ws: Workspace, between: Callable[[], None] = _nothing) -> list[Finding]:
    out: list[Finding] = []
    for family in running(ws, PER_DOCUMENT):
        between()
        out += family(ws)
    return out


def _graph_wide(ws: Workspace, between: Callable[[], None] = _nothing) -> list[Finding]:
    # every selected agent's own findings are graph-wide: a load reads many files
    out: list[Finding] = []
    for family in running(ws, GRAPH_WIDE):
        between()
        out += family(ws)
    return [*out, *profile_findings(ws, between)]


def running(ws: Workspace, families: tuple[Family, ...]) -> tuple[Family, ...]:
    """`families` less those whose only code the configuration turns off."""
    off = {code for code, level in ws.config.severity.items() if level == "off"}
    if not off:
        return families
    return tuple(f for f in families if ONE_CODE.get(f) not in off)


class _OneDocument:
    """A workspace as the per-document families see it when only `key` is asked for: its lint
    set is that document, its rules that document's rule (if it is one)."""

    def __init__(self, ws: Workspace, key: str):
        self._ws = ws
        self._key = key

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ws, name)

    def lint_documents(self) -> list[str]:
        return [self._key]

    @property
    def rules(self) -> list[RuleInfo]:
        # by its path, not by scanning every rule: asked once per document at a cold start,
        # scanning was quadratic (0.39 s for 1,600 rules, benchmarks/README.md)
        found = self._ws.rule_info(self._key)
        return [found] if found is not None else []


def document_findings(ws: Workspace, key: str) -> list[Finding]:
    """The per-document families' findings of `key` alone, finalized (suppressions, ignore
    globs and severity overrides applied): what the language server recomputes on an edit."""
    view: Any = _OneDocument(ws, key)
    # (a family may also report paths that are no document, such as dangling links: those
    # are not this document's)
    return finalize(ws, [f for family in running(ws, PER_DOCUMENT) for f in family(view)
                         if f.path == key])


def merge(local: list[Finding], graph: list[Finding]) -> list[Finding]:
    """An edited document's findings: its fresh per-document ones and the graph-wide ones of
    the last whole check, sorted, each once."""
    seen = {(f.path, f.span, f.code, f.message) for f in local}
    out = [*local, *(f for f in graph if (f.path, f.span, f.code, f.message) not in seen)]
    out.sort(key=Finding.sort_key)
    return out


def profile_findings(ws: Workspace, between: Callable[[], None] = _nothing) -> list[Finding]:
    """What each selected agent suffers. The default model's findings read as they always
    have; another agent's name that agent (`codex: …`), as only it is affected. `between`:
    called before each agent's (`run_checks_split`)."""
    from rulemap.profiles.base import prefixed

    out: list[Finding] = []
    # the named copy of each finding a profile gave last time, by the identity of the one it
    # gives (profiles hand back their cached findings: an edit re-names only what changed)
    previous = ws.named_findings
    named: dict[int, tuple[Finding, Finding]] = {}
    default = default_name(ws)
    for profile in selected(ws):
        between()
        # a file it reads by name but in a place it never looks: asked of every agent alike
        found = [*profile.findings(ws), *profile.misplaced(ws)]
        if profile.name == default:
            out.extend(found)
            continue
        fresh = []
        for finding in found:
            entry = previous.get(id(finding))
            if entry is not None and entry[0] is finding:
                named[id(finding)] = entry
                out.append(entry[1])
            else:
                fresh.append(finding)
        for finding, copy in zip(fresh, prefixed(profile, fresh), strict=True):
            named[id(finding)] = (finding, copy)
            out.append(copy)
    ws.named_findings = named
    return out



def finalize(ws: Workspace, raw: list[Finding]) -> list[Finding]:
    """Drop suppressed and ignored findings, apply severity overrides, sort, de-duplicate."""
    ignore = compile_patterns(ws.config.ignore) if ws.config.ignore else None
    overrides = ws.config.severity
    seen: set[tuple[object, ...]] = set()
    out: list[Finding] = []
    for finding in raw:
        if ignore is not None and ignore.match(finding.path):
            continue
        level = overrides.get(finding.code)
        if level == "off":
            continue
        if level is not None and level != finding.severity:
            # a new Finding: the one given may be cached and shared by the next check
            finding = replace(finding, severity=level)  # type: ignore[arg-type]
        if not finding.path.startswith("/"):
            doc = ws.document(finding.path)
            if doc.suppressions.suppressed(finding.code, finding.span.start.line):
                continue
        key = (finding.path, finding.span, finding.code, finding.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(finding)
    out.sort(key=Finding.sort_key)
    return out
