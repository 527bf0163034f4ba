"""The reverse of `explain`: who loads a file, which of its lines an agent never sees, who
sees one paragraph, and whether a sentence reaches each agent's model (docs/reach.md).

Why here: `rulemap reach` and `rulemap why`, the language server's `rulemap/reach`,
`rulemap/unseenLines` and `rulemap/why`, the "who loads it" lens and the "who sees this
paragraph" hover ask the same engine (`rulemap.reach`, `rulemap.unseen`, `rulemap.why`) with
the same choices — the agents (named, else the workspace's selected ones) and the cwd they
work in (given, else the configuration's). Each question takes a `Snapshot` and answers with
the engine's frozen dataclasses, re-exported here for the edges to read.

Heavy (the engine): the edges import this module inside the functions that ask it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rulemap import analysis
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.reach import AgentReach, Glimpse, Reach, Way, comment_lines, ordinal, overview
from rulemap.reach import reach as _reach
from rulemap.records import record
from rulemap.unseen import AgentUnseen, Sight, agent_unseen, paragraph
from rulemap.unseen import sight as _sight
from rulemap.why import Place, Verdict, Why
from rulemap.why import why as _why
from rulemap.why import why_in_session as _why_in_session

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.profiles.steps import ToolStep

__all__ = [
    "AgentOverview", "AgentReach", "AgentUnseen", "Glimpse", "Paragraph", "Place", "Reach",
    "Sight", "Verdict", "Way", "Why", "agent_overview", "names_a_file", "ordinal",
    "paragraph_at", "reach", "sight", "unseen_lines", "why", "why_in_session",
]


@record(frozen=True)
class AgentOverview:
    """One agent's glimpse of every file it loads (`glimpses` None: the agent has no load
    groups, so it is asked file by file, by the file's place)."""

    name: str
    title: str
    glimpses: dict[str, Glimpse] | None


@record(frozen=True)
class Paragraph:
    """The paragraph or list item around a line (0-based, inclusive bounds) and the file's
    HTML-comment lines (which an agent that strips comments never brings)."""

    start: int
    end: int
    comments: frozenset[int]


def _agents(snap: Snapshot, names: Sequence[str] | None) -> list[Profile]:
    """The agents named (None: the workspace's selected ones, in their order)."""
    from rulemap.profiles import get_profile

    if names is not None:
        return [get_profile(n) for n in names]
    return list(analysis.select_profiles(workspace_of(snap)))


def _cwd(snap: Snapshot, cwd: str | None) -> str:
    """The agents' working directory as the engine takes it ("" for the root)."""
    where = workspace_of(snap).config.cwd if cwd is None else cwd
    return "" if where == "." else where


def names_a_file(snap: Snapshot, key: str) -> bool:
    """Whether `key` is a file of the workspace (not a directory, not missing)."""
    ws = workspace_of(snap)
    path = ws.abs(key)
    return ws.reader.exists(path) and not ws.reader.is_dir(path)


def reach(snap: Snapshot, key: str, line: int | None, agents: Sequence[str] | None = None,
          cwd: str | None = None) -> Reach:
    """Who loads `key` (its 0-based `line`, or the whole file) for each of `agents` (None: the
    selected ones), working in `cwd` (None: the configuration's)."""
    return _reach(workspace_of(snap), key, line, _agents(snap, agents), _cwd(snap, cwd))


def why(snap: Snapshot, text: str, target: str | None, agents: Sequence[str] | None = None,
        cwd: str | None = None) -> Why:
    """Whether `text` reaches each agent's model for `target` (None: the start-up load)."""
    return _why(workspace_of(snap), text, target, _agents(snap, agents), _cwd(snap, cwd))


def why_in_session(snap: Snapshot, text: str, steps: Sequence[ToolStep],
                   agents: Sequence[str] | None = None, cwd: str | None = None) -> Why:
    """Whether `text` joins each agent's context at some step of a replayed session."""
    return _why_in_session(workspace_of(snap), text, steps, _agents(snap, agents),
                           _cwd(snap, cwd))


def agent_overview(snap: Snapshot, name: str) -> AgentOverview:
    """One selected agent's glimpse of every file, in one pass over its load groups, from the
    configured cwd; an agent no longer selected (its folder being re-read) has none."""
    ws = workspace_of(snap)
    profile = next((p for p in analysis.select_profiles(ws) if p.name == name), None)
    if profile is None:
        return AgentOverview(name, name, None)
    return AgentOverview(profile.name, profile.title, overview(ws, profile, _cwd(snap, None)))


def unseen_lines(snap: Snapshot, key: str, agents: Sequence[str] | None = None,
                 known: Mapping[str, dict[str, Glimpse] | None] | None = None
                 ) -> tuple[AgentUnseen, ...] | None:
    """Per agent (None: the selected ones), the lines of `key` it never brings to its model
    (None: `key` is not an instruction file, rule or imported file of any of them). `known`:
    the overviews already computed, by agent name (the others are computed here)."""
    ws = workspace_of(snap)
    profiles = _agents(snap, agents)
    if not (ws.is_instruction(key) or key in ws.import_reach().imported
            or any(p.reads(ws, key) for p in profiles)):
        return None
    cwd = _cwd(snap, None)
    out = []
    for profile in profiles:
        glimpses = known[profile.name] if known is not None and profile.name in known \
            else overview(ws, profile, cwd)
        glimpse = None if glimpses is None else glimpses.get(key)
        if glimpses is not None and glimpse is None:
            glimpse = Glimpse()  # no load group includes it
        out.append(agent_unseen(ws, profile, key, glimpse, cwd))
    return tuple(out)


def paragraph_at(snap: Snapshot, key: str, line: int) -> Paragraph | None:
    """The paragraph or list item holding `line` of `key` (None: a blank line, or past the
    end)."""
    comments = frozenset(comment_lines(workspace_of(snap), key))
    bounds = paragraph(snap.document(key).lines, line, comments)
    if bounds is None:
        return None
    return Paragraph(bounds[0], bounds[1], comments)


def sight(glimpse: Glimpse, para: Paragraph) -> Sight:
    """How many of the files whose load includes the file get `para`, from an agent's
    glimpse of it: whole, cut inside it, or stripped as an HTML comment."""
    return _sight(glimpse, para.comments, para.start, para.end)
