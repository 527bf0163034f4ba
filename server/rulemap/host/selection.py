"""Which agents a workspace is looked at for, why each, and which one leads.

The selection is decided once, when the host opens (`open_host`'s `profiles`, `all` for every
registered agent), else by the configuration's `profiles`, else it is the default model plus
every agent whose own files exist (`analysis.select_profiles`). Every command, the server and
the extension ask here, so they name the same agents for the same reasons.

The lead agent is the one a view answers for when nobody picked one: the configuration's
`profile`, else the default model when it reads some instruction file or rule here, else the
first selected agent (in the registry's order, the order every output lists them in) that
does. A repository written for Gemini CLI alone then opens on Gemini CLI, not on an empty
load of the default model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from rulemap.derived import KeyFamily
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

__all__ = [
    "Chosen", "Lead", "assumed_platform", "lead_agent", "lead_json", "lead_name", "selection",
    "selection_json", "selection_said",
]


@record(frozen=True)
class Chosen:
    """One selected agent: its command-line name, its title for people, and why it was
    selected ("the default model", "CLAUDE.md", "--profiles", "rulemap.toml `profiles`")."""

    name: str
    title: str
    why: str


@record(frozen=True)
class Lead:
    """The agent a view answers for, why, and a sentence for the person when another agent
    may be the one they want (None: nothing to say)."""

    name: str
    why: str
    note: str | None = None


def selection(snap: Snapshot) -> tuple[Chosen, ...]:
    """The workspace's selected agents in order, each with why it was selected."""
    from rulemap import analysis

    return tuple(Chosen(p.name, p.title, why)
                 for p, why in analysis.selection_reasons(workspace_of(snap)))


def assumed_platform(snap: Snapshot) -> str:
    """The platform the agents are taken to run on (`linux`, `macos`, `windows`): the
    `--platform` given, else the configuration's `platform`, else the host's. Every JSON
    answer says it beside the selection: on macOS and Windows `agents.md` is `AGENTS.md`."""
    return workspace_of(snap).platform


def selection_json(snap: Snapshot) -> list[dict[str, str]]:
    """`selection` as JSON data: `[{"name", "title", "why"}]`."""
    return [{"name": c.name, "title": c.title, "why": c.why} for c in selection(snap)]


def lead_agent(
    snap: Snapshot,
    target: str | None = None,
    chosen: str | None = None,
    chosen_why: str = "--profile",
    cwd: str | None = None,
) -> Lead:
    """The agent to answer for: `chosen` (a person's pick, `chosen_why` saying where it came
    from), else the configuration's `profile`, else the default model when it reads some
    instruction file or rule here, else the first selected agent that does, else the default
    model. Its `note` names the agent to pick when the lead is not the default model for
    want of its files, or when the lead loads nothing for `target` (from `cwd`) and another
    selected agent does."""
    from rulemap import analysis

    ws = workspace_of(snap)
    if chosen is not None:
        lead = Lead(chosen, chosen_why)
    else:
        cached = ws.derived.get(_LEAD)
        if cached is None:
            cached = _automatic_lead(ws)
            # which agents read which files changes only with a create or delete (or a new
            # configuration, which opens a new workspace), and those drop every derived value
            ws.derived.put(_LEAD, cached, reads=())
        lead = cached
    if target is not None and lead.note is None:
        agents = [p for p, _ in analysis.selection_reasons(ws)]
        return Lead(lead.name, lead.why, _empty_load_note(ws, lead.name, agents, target, cwd))
    return lead


def lead_name(snap: Snapshot) -> str:
    """The name of the agent views answer for when nobody picked one (`lead_agent`)."""
    return lead_agent(snap).name


_LEAD: Final = KeyFamily[Lead]("lead-agent").key()


def _automatic_lead(ws: Workspace) -> Lead:
    """`lead_agent` without a pick: the configuration's `profile`, else the default model
    when it reads a file here, else the first selected agent that does (with a note), else
    the default model (or the first selected agent when it is not selected)."""
    from rulemap import analysis
    from rulemap.profiles import DEFAULT_PROFILE

    if ws.config.profile is not None:
        from rulemap.config import named_by

        return Lead(ws.config.profile, named_by(ws.config, "profile"))
    reasons = analysis.selection_reasons(ws)
    why_of = {p.name: why for p, why in reasons}
    default = next((p for p, _ in reasons if p.name == DEFAULT_PROFILE), None)
    if default is not None and _reads_any(ws, default):
        return Lead(default.name, why_of[default.name])
    first = next((p for p, _ in reasons if p is not default and _reads_any(ws, p)), None)
    if first is not None:
        note = None
        if default is not None:
            note = (f"{DEFAULT_PROFILE}, the default model, reads no instruction file here: "
                    f"answering for {first.name} ({why_of[first.name]}); pick "
                    f"{DEFAULT_PROFILE} to see the default model's load.")
        return Lead(first.name, why_of[first.name], note)
    name = (default.name if default is not None
            else reasons[0][0].name if reasons else DEFAULT_PROFILE)
    return Lead(name, why_of.get(name, "the default model"))


def selection_said(snap: Snapshot) -> dict[str, Any]:
    """What a client shows of the selection: `{"selection": selection_json, "lead":
    lead_json}` (`rulemap/profiles`)."""
    return {"selection": selection_json(snap), "lead": lead_json(lead_agent(snap))}


def lead_json(lead: Lead) -> dict[str, Any]:
    """The lead as JSON data: `{"name", "why"}` (and `"note"` when it has one)."""
    out: dict[str, Any] = {"name": lead.name, "why": lead.why}
    if lead.note is not None:
        out["note"] = lead.note
    return out


def _reads_any(ws: Workspace, profile: Profile) -> bool:
    """Whether `profile` reads some file of the workspace as an instruction file or rule."""
    from rulemap.profiles.documents import read_documents

    return any(profile.reads(ws, key) for key in read_documents(ws, (profile,)))


def _empty_load_note(
    ws: Workspace, lead: str, agents: list[Profile], target: str, cwd: str | None
) -> str | None:
    """A sentence when `lead` loads nothing for `target` and another of `agents` does."""
    from rulemap import analysis

    if analysis.explain(ws, target, cwd=cwd, profile=lead).files:
        return None
    for agent in agents:
        if agent.name != lead and analysis.explain(ws, target, cwd=cwd,
                                                   profile=agent.name).files:
            return (f"{lead} loads nothing for {target}; {agent.name} does: pick "
                    f"{agent.name} to see its load.")
    return None
