"""Runs every check family over a workspace, then each selected profile's own findings, then
applies suppressions and configuration.

The families here are about the files themselves (bytes, frontmatter, globs, import tokens,
the import graph, trust); what an agent's loading does to them (a budget that cuts, a file it
never reads, a file named as its own where it never looks) is the selected profiles' to say
(`Profile.findings`, `Profile.misplaced`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from rulemap.checks import (
    drifted_copy,
    duplicate_text,
    files,
    frontmatter,
    imports,
    link_only,
    loaded_twice,
    name_case,
    stale_command,
    stale_reference,
    trust,
)
from rulemap.globs import compile_patterns
from rulemap.model import Finding
from rulemap.profiles import default_name
from rulemap.profiles.base import selected

if TYPE_CHECKING:
    from rulemap.workspace import RuleInfo, Workspace

Family = Callable[["Workspace"], list[Finding]]

# Each family says what its findings about a document depend on. Per-document families read
# only that document (and the file list): the language server recomputes them on every edit of
# it, at once. Graph-wide families read the import graph, the configuration or every agent's
# loads: they come from the whole check, which runs off the editor's event loop; until it has
# run again, an edited document keeps their last findings (`Checked.graph`).
PER_DOCUMENT = (files.check, frontmatter.check, imports.document_check,
                stale_reference.document_check)
GRAPH_WIDE = (imports.graph_check, trust.check, loaded_twice.check, link_only.check,
              duplicate_text.check, drifted_copy.check, stale_reference.graph_check,
              stale_command.check, name_case.check)
# The families that emit one code only: when the configuration turns it off (`[severity]
# stale-command = "off"`) the family does not run at all — a check nobody wants costs nothing.
# (tests/core/test_check_registry.py holds each to emitting that code alone)
ONE_CODE: Final[dict[Family, str]] = {
    duplicate_text.check: "duplicate-text", drifted_copy.check: "drifted-copy",
    stale_reference.document_check: "stale-reference",
    stale_reference.graph_check: "stale-reference", stale_command.check: "stale-command",
    name_case.check: "name-case"}


@dataclass(frozen=True)
class Checked:
    """A whole check's findings, finalized: all of them, and the graph-wide part alone (what an
    edited document keeps from it until the next whole check; docs/architecture.md)."""

    all: list[Finding]
    graph: list[Finding]


def run_checks(ws: Workspace) -> list[Finding]:
    return finalize(ws, [*_per_document(ws), *_graph_wide(ws)])


def run_checks_split(ws: Workspace) -> Checked:
    """`run_checks`, and its graph-wide findings apart (the language server's whole check)."""
    graph = _graph_wide(ws)
    return Checked(finalize(ws, [*_per_document(ws), *graph]), finalize(ws, graph))


def _per_document(ws: Workspace) -> list[Finding]:
    return [f for family in running(ws, PER_DOCUMENT) for f in family(ws)]


def _graph_wide(ws: Workspace) -> list[Finding]:
    # every selected agent's own findings are graph-wide: a load reads many files
    return [*(f for family in running(ws, GRAPH_WIDE) for f in family(ws)),
            *profile_findings(ws)]


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
        return [r for r in self._ws.rules if r.path == self._key]


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


def profile_findings(ws: Workspace) -> list[Finding]:
    """What each selected agent suffers. The default model's findings read as they always
    have; another agent's name that agent (`codex: …`), as only it is affected."""
    from rulemap.profiles.base import prefixed

    out: list[Finding] = []
    # the named copy of each finding a profile gave last time, by the identity of the one it
    # gives (profiles hand back their cached findings: an edit re-names only what changed)
    previous = ws.named_findings
    named: dict[int, tuple[Finding, Finding]] = {}
    default = default_name(ws)
    for profile in selected(ws):
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
