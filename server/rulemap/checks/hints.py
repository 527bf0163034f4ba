"""Did-you-means worked out only where they are shown.

A check that could suggest a fix for a finding (a close glob for one that matches nothing)
leaves a `Hint` on it instead of searching: with 2,000 dead globs the searches were half of a
cold check, for suggestions a JSON consumer never reads. Whoever shows the finding to a person
asks here: the text and GitHub reports, `check --suggest` in JSON or SARIF, an editor's quick
fix (docs/checks.md, "Suggestions"). Each look-up is bounded (`rulemap.suggest`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from rulemap.checks.frontmatter import NEAR_GLOB, near_glob, near_match
from rulemap.checks.imports import NEAR_PATH, near_path
from rulemap.checks.stale_command import NEAR_COMMAND, near_command
from rulemap.checks.stale_reference import MOVED, with_moved
from rulemap.model import Finding

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# hint kind → the finding with its suggestion in the message and fixes (and no hint left)
RESOLVERS: Final[dict[str, Callable[[Workspace, Finding], Finding]]] = {
    NEAR_GLOB: near_glob, MOVED: with_moved, NEAR_COMMAND: near_command,
    NEAR_PATH: near_path,
}


def with_suggestion(ws: Workspace, finding: Finding) -> Finding:
    """`finding` with its did-you-mean worked out (itself when it has none pending). The
    finding is not changed in place: it may be a cached one. A kind no check knows is the
    agent's that named the finding (`Profile.resolve_hint`)."""
    if finding.hint is None:
        return finding
    resolver = RESOLVERS.get(finding.hint.kind)
    if resolver is not None:
        return resolver(ws, finding)
    from rulemap.profiles import PROFILES

    # (the default agent's findings name no agent: each is asked, the kinds are distinct)
    named = PROFILES.get(finding.profile) if finding.profile is not None else None
    for profile in [named] if named is not None else PROFILES.values():
        resolved = profile.resolve_hint(ws, finding)
        if resolved is not None:
            return resolved
    return replace(finding, hint=None)


def with_suggestions(ws: Workspace, findings: Iterable[Finding]) -> list[Finding]:
    return [with_suggestion(ws, f) for f in findings]


def close_glob(ws: Workspace, rule: str, pattern: str) -> str | None:
    """A glob close to `pattern` (of `rule`) that matches files, for a hover on one that
    matches none (None: nothing close matches)."""
    return near_match(ws, rule, pattern)
