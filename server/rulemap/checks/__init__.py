"""Runs every check family over a workspace, then each selected profile's own findings, then
applies suppressions and configuration.

The families here are about the files themselves (bytes, frontmatter, globs, import tokens,
the import graph, trust); what an agent's loading does to them (a budget that cuts, a file it
never reads) is the selected profiles' to say (`Profile.findings`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rulemap.checks import files, frontmatter, imports, trust
from rulemap.globs import compile_patterns
from rulemap.model import Finding

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

FAMILIES = (files.check, frontmatter.check, imports.check, trust.check)


def run_checks(ws: Workspace) -> list[Finding]:
    raw: list[Finding] = []
    for family in FAMILIES:
        raw.extend(family(ws))
    raw.extend(profile_findings(ws))
    return finalize(ws, raw)


def profile_findings(ws: Workspace) -> list[Finding]:
    """What each selected agent suffers. The default model's findings read as they always
    have; another agent's name that agent (`codex: …`), as only it is affected."""
    from rulemap.profiles.base import prefixed

    out: list[Finding] = []
    # the named copy of each finding a profile gave last time, by the identity of the one it
    # gives (profiles hand back their cached findings: an edit re-names only what changed)
    previous = ws.named_findings
    named: dict[int, tuple[Finding, Finding]] = {}
    for profile in ws.profiles:
        found = profile.findings(ws)
        if profile.name == ws.config.profile:
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
