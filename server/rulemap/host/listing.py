"""The editor's lists of the agents' files (`rulemap/instructionFiles`, `rulemap/profiles`):
which files some selected agent reads as instructions, how many files a scoped rule matches
for a named agent, and which agent a folder models."""

from __future__ import annotations

from rulemap.host.snapshot import Snapshot, workspace_of

__all__ = ["agent_documents", "default_agent_of", "rule_matches"]


def agent_documents(snap: Snapshot) -> tuple[str, ...]:
    """Every file some selected agent reads as an instruction file or rule (imports aside),
    sorted."""
    from rulemap import analysis

    return analysis.agent_documents(workspace_of(snap))


def rule_matches(snap: Snapshot, rule: str, profile: str | None) -> list[str]:
    """Files all globs of `rule` together match, as `profile` (None: the configuration's)
    matches globs. Raises UnknownProfile."""
    from rulemap import analysis

    return analysis.rule_matches(workspace_of(snap), rule, profile)


def default_agent_of(snap: Snapshot | None) -> str:
    """The agent views model when none is picked: the configuration's, else the registry's
    default (None: no workspace yet)."""
    from rulemap import analysis

    return analysis.default_profile_name(workspace_of(snap) if snap is not None else None)
