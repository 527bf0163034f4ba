"""The "who loads it" code lens: per selected agent, how many files load an instruction file
or rule, and where a budget cuts it — "who loads it: Cogitator 1,204 files · Codex 20,612,
cut at line 210 for 300 · Gemini CLI never" (docs/reach.md) — and an inlay hint at the line
where each agent's budget stops it reading the file.

No request pays for it on the event loop: when a lens is asked for and the folder's overview
is missing or older than its graph, the worker asks the host for every selected agent's
overview (`host/reaching.py`: one pass over its load groups) once the whole check is done (after
the first whole check always, and after every later one once a view has asked in the folder),
and the client is asked to refresh its lenses when it is ready; until then the older
overview is shown. An agent without load groups (a plug-in profile; every built-in one has
them) says what its `load_status` says of the file by its place."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types

from rulemap.lsp import heap
from rulemap.lsp.folders import Overviews

if TYPE_CHECKING:
    from rulemap.host import Snapshot
    from rulemap.host.reaching import AgentOverview, Glimpse
    from rulemap.lsp.engine_core import EngineCore
    from rulemap.lsp.folders import Folder
    from rulemap.model import LoadStatus

T = TypeVar("T")

MIN_AGENTS = 2  # with one agent selected, the first lens already says it all
POLL_S = 0.02  # how often a waiting overview looks whether the whole check is done


def generation_of(folder: Folder) -> int | None:
    """The generation of the folder's engine on the loop (None: not indexed)."""
    host = folder.host
    return host.generation if host is not None else None


def lens(engine: EngineCore, folder: Folder, key: str,
         refresh: Callable[[], None]) -> types.CodeLens | None:
    """The lens for `key`, or None (not ready yet: asked for; or fewer than two agents)."""
    current = _current(engine, folder, refresh)
    if current is None or len(current.agents) < MIN_AGENTS:
        return None
    host = folder.host
    if host is None:
        return None
    parts = [_part(host.snapshot(agent.name).load_status(key) if agent.glimpses is None
                   else None, agent.title, agent.glimpses, key) for agent in current.agents]
    title = "who loads it: " + " · ".join(parts)
    return types.CodeLens(range=types.Range(start=types.Position(line=0, character=0),
                                            end=types.Position(line=0, character=0)),
                          command=types.Command(title=title, command=""))


def cut_hints(engine: EngineCore, folder: Folder, key: str, first: int, last: int,
              refresh: Callable[[], None]) -> list[types.InlayHint]:
    """At the line where an agent's budget stops it reading `key` (the earliest such line
    of all the loads that cut it), between lines `first` and `last`: "OpenAI Codex CLI stops
    reading here for 300 files"."""
    current = _current(engine, folder, refresh)
    if current is None:
        return []
    out: list[types.InlayHint] = []
    for agent in current.agents:
        glimpse = agent.glimpses.get(key) if agent.glimpses is not None else None
        if glimpse is None or not glimpse.cut or glimpse.cut_line is None:
            continue
        if not first <= glimpse.cut_line <= last:
            continue
        noun = "file" if glimpse.cut == 1 else "files"
        out.append(types.InlayHint(
            position=types.Position(line=glimpse.cut_line, character=0),
            label=f"{agent.title} stops reading in this line for {glimpse.cut:,} {noun} ",
            padding_right=True))
    return out


def paragraph_hover(engine: EngineCore, folder: Folder, key: str, line: int,
                    refresh: Callable[[], None]) -> types.Hover | None:
    """"Who sees this paragraph": per selected agent, how many of the files that load `key`
    get the paragraph or list item at `line` — whole, or cut inside it — or why none does
    (stripped as an HTML comment, never loaded). None until the overview is ready."""
    from rulemap.host.reaching import paragraph_at, sight

    current = _current(engine, folder, refresh)
    host = folder.host
    if current is None or host is None:
        return None
    para = paragraph_at(host.snapshot(), key, line)
    if para is None:
        return None
    start, end = para.start, para.end
    rows = []
    for agent in current.agents:
        name, title, glimpses = agent.name, agent.title, agent.glimpses
        if glimpses is None:  # no load groups: by the file's place
            status = host.snapshot(name).load_status(key)
            rows.append(f"- **{title}**: " + (f"{status.files:,} files (by its place)"
                        if status.loads else f"never — {status.why_not or 'it does not load it'}"))
            continue
        glimpse = glimpses.get(key)
        if glimpse is None or not glimpse.files:
            if glimpse is not None and glimpse.left_out:
                why = f"left out over the budget for {glimpse.left_out:,} files"
            else:
                why = host.snapshot(name).load_status(key).why_not or \
                    "no file's load includes it"
            rows.append(f"- **{title}**: never — {why}")
            continue
        seen = sight(glimpse, para)
        # the text read under another name (a symlink either way), said once for the text
        via = "" if glimpse.through is None else f", reading it as {glimpse.through.phrase()}"
        if seen.stripped:
            rows.append(f"- **{title}**{via}: no — inside an HTML comment, which it removes")
            continue
        if seen.whole == seen.files:
            text = ("the one file that loads it" if seen.files == 1
                    else f"all {seen.files:,} files that load it")
        else:
            noun = "file that loads" if seen.files == 1 else "files that load"
            text = f"{seen.whole:,} of the {seen.files:,} {noun} it"
        if seen.partly:
            text += f"; its budget stops inside it for {seen.partly:,}"
        missed = seen.files - seen.whole - seen.partly
        if missed:
            text += f"; stops reading before it for {missed:,}"
        rows.append(f"- **{title}**{via}: {text}")
    for finding in folder.findings(key):  # its copies (duplicate-text, drifted-copy)
        said = _copy_said(finding.code)
        if said and finding.span.start.line <= end and start <= finding.span.end.line \
                and finding.related:
            rows.append(f"- also in `{finding.related[0].path}` "
                        f"(line {finding.related[0].span.start.line + 1}): {said}")
    lines = f"line {start + 1}" if start == end else f"lines {start + 1}–{end + 1}"
    body = f"**Who sees this paragraph** ({lines})\n\n" + "\n".join(rows)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=body))


def _copy_said(code: str) -> str | None:
    """What a finding about a copy of the paragraph says of it, in the hover (None: not one)."""
    if code == "duplicate-text":
        return "the model gets it twice"
    if code == "drifted-copy":
        return "a copy for other agents that says it differently"
    return None


def _current(engine: EngineCore, folder: Folder, refresh: Callable[[], None] | None
             ) -> Overviews | None:
    """The folder's overview (an older one while the new one is computed; None before the
    first), asking the worker for a new one when the graph moved on."""
    generation = generation_of(folder)
    if generation is None:
        return None
    if refresh is not None:  # a view asked: told when it is ready, after each whole check
        folder.overview_refresh = refresh
    current = folder.overviews
    if (current is None or current.generation != generation) \
            and folder.overviews_for != generation:
        folder.overviews_for = generation
        engine.spawn(_compute(engine, folder, generation))
    return current  # an older one until the new is ready: no flickering while typing


def after_check(engine: EngineCore, folder: Folder) -> None:
    """A whole check is done: compute the overview of the new graph now, so that the next
    lens, hint or hover finds it ready — after the first check always (an instruction file
    opened later shows its lens at once), after later ones once a view has asked here."""
    if folder.overview_refresh is not None or folder.overviews is None:
        _current(engine, folder, None)


def _part(status: LoadStatus | None, title: str, glimpses: dict[str, Glimpse] | None,
          key: str) -> str:
    if glimpses is None:  # no load groups: what it loads by the file's place (`status`)
        if status is None or (not status.loads and not status.scoped):
            return f"{title} never"
        return f"{title} {status.files:,} (by its place)"
    glimpse = glimpses.get(key)
    if glimpse is None or not glimpse.files:
        return f"{title} never" + (f", left out for {glimpse.left_out:,}"
                                   if glimpse and glimpse.left_out else "")
    text = f"{title} {glimpse.files:,}"
    if glimpse.through is not None:
        text += f" as {glimpse.through.path}"
    if glimpse.cut:
        where = f" at line {glimpse.cut_line + 1}" if glimpse.cut_line else ""
        text += f", cut{where} for {glimpse.cut:,}"
    if glimpse.left_out:
        text += f", left out for {glimpse.left_out:,}"
    return text


async def _compute(engine: EngineCore, folder: Folder, generation: int) -> None:
    """The overview for `generation`, once edits pause and the whole check is done: it
    shares the one worker with the checks, which come first. The views that asked are told
    when it is ready (`overview_refresh`)."""
    try:
        # an edit sets the debounce timer of the whole check before its lens is asked for:
        # wait for that check, which comes first on the worker
        while folder.check_running or folder.full_timer is not None:
            await asyncio.sleep(POLL_S)
        names = await engine.on_replica(folder, _selected)
        agents = []
        for name in names:
            # an agent at a time: a request queued meanwhile on the one worker (the sidebar's
            # effectiveInstructions, rulemap/unseenLines) waits for one agent's overview, not
            # for every agent's (~180 ms on the monorepo)
            if generation_of(folder) != generation:
                return  # edited meanwhile: the next lens request asks for the newer graph
            agents.append(await engine.on_replica(folder, _overview_of, name))
    finally:
        if folder.overviews_for == generation:
            folder.overviews_for = None
    if generation_of(folder) == generation:
        folder.overviews = Overviews(generation, tuple(agents))
        heap.settled()  # kept until the next overview: out of the full collections (heap.py)
        if folder.overview_refresh is not None:
            folder.overview_refresh()


def _selected(snap: Snapshot) -> tuple[str, ...]:
    """Runs in the worker: the selected agents' names, in their order."""
    return snap.selected_agents()


def _overview_of(snap: Snapshot, name: str) -> AgentOverview:
    """Runs in the worker: one selected agent's overview."""
    from rulemap.host.reaching import agent_overview

    return agent_overview(snap, name)
