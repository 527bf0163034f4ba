"""The "who loads it" code lens: per selected agent, how many files load an instruction file
or rule, and where a budget cuts it — "who loads it: Cogitator 1,204 files · Codex 20,612,
cut at line 210 for 300 · Gemini CLI never" (docs/reach.md) — and an inlay hint at the line
where each agent's budget stops it reading the file.

No request pays for it on the event loop: when a lens is asked for and the folder's overview
is missing or older than its graph, the worker computes every selected agent's
`rulemap.reach.overview` (one pass over its load groups) once edits pause and the whole check
is done, and the client is asked to refresh its lenses when it is ready; until then the older
overview is shown. An agent without load groups says what its `load_status` says
of the file by its place."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from rulemap.lsp.folders import Folder
    from rulemap.lsp.state import Engine
    from rulemap.model import LoadStatus
    from rulemap.reach import Glimpse
    from rulemap.workspace import Workspace

MIN_AGENTS = 2  # with one agent selected, the first lens already says it all
QUIET_S = 0.3  # edits pause this long (and no whole check runs) before an overview starts


@dataclass(frozen=True)
class Overviews:
    generation: int  # of the loop's workspace the worker's copy was at
    agents: tuple[tuple[str, str, dict[str, Glimpse] | None], ...]  # name, title, glimpses


def lens(engine: Engine, folder: Folder, key: str,
         refresh: Callable[[], None]) -> types.CodeLens | None:
    """The lens for `key`, or None (not ready yet: asked for; or fewer than two agents)."""
    current = _current(engine, folder, refresh)
    if current is None or len(current.agents) < MIN_AGENTS:
        return None
    host = folder.host
    if host is None:
        return None
    parts = [_part(host.snapshot(name).load_status(key) if glimpses is None else None, title,
                   glimpses, key) for name, title, glimpses in current.agents]
    title = "who loads it: " + " · ".join(parts)
    return types.CodeLens(range=types.Range(start=types.Position(line=0, character=0),
                                            end=types.Position(line=0, character=0)),
                          command=types.Command(title=title, command=""))


def cut_hints(engine: Engine, folder: Folder, key: str, first: int, last: int,
              refresh: Callable[[], None]) -> list[types.InlayHint]:
    """At the line where an agent's budget stops it reading `key` (the earliest such line
    of all the loads that cut it), between lines `first` and `last`: "OpenAI Codex CLI stops
    reading here for 300 files"."""
    current = _current(engine, folder, refresh)
    if current is None:
        return []
    out: list[types.InlayHint] = []
    for _, title, glimpses in current.agents:
        glimpse = glimpses.get(key) if glimpses is not None else None
        if glimpse is None or not glimpse.cut or glimpse.cut_line is None:
            continue
        if not first <= glimpse.cut_line <= last:
            continue
        noun = "file" if glimpse.cut == 1 else "files"
        out.append(types.InlayHint(
            position=types.Position(line=glimpse.cut_line, character=0),
            label=f"{title} stops reading in this line for {glimpse.cut:,} {noun} ",
            padding_right=True))
    return out


def _current(engine: Engine, folder: Folder, refresh: Callable[[], None]) -> Overviews | None:
    """The folder's overview (an older one while the new one is computed; None before the
    first), asking the worker for a new one when the graph moved on."""
    ws = folder.ws
    if ws is None:
        return None
    current = folder.overviews
    if (current is None or current.generation != ws.generation) \
            and folder.overviews_for != ws.generation:
        folder.overviews_for = ws.generation
        engine._spawn(_compute(engine, folder, ws.generation, refresh))
    return current  # an older one until the new is ready: no flickering while typing


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
    if glimpse.cut:
        where = f" at line {glimpse.cut_line + 1}" if glimpse.cut_line else ""
        text += f", cut{where} for {glimpse.cut:,}"
    if glimpse.left_out:
        text += f", left out for {glimpse.left_out:,}"
    return text


async def _compute(engine: Engine, folder: Folder, generation: int,
                   refresh: Callable[[], None]) -> None:
    """The overview for `generation`, once edits pause and the whole check is done: it
    shares the one worker with the checks, which come first."""
    try:
        await asyncio.sleep(QUIET_S)
        while folder.check_running or folder.full_timer is not None:
            await asyncio.sleep(QUIET_S)
        if folder.ws is None or folder.ws.generation != generation:
            return  # edited meanwhile: the next lens request asks for the newer graph
        agents = await engine.on_replica(folder, _overviews)
    finally:
        if folder.overviews_for == generation:
            folder.overviews_for = None
    ws = folder.ws
    if ws is not None and ws.generation == generation:
        folder.overviews = Overviews(generation, agents)
        refresh()


def _overviews(replica: Workspace) -> tuple[tuple[str, str, dict[str, Glimpse] | None], ...]:
    """Runs in the worker: every selected agent's overview."""
    from rulemap import analysis
    from rulemap.reach import overview

    cwd = replica.config.cwd
    return tuple((p.name, p.title, overview(replica, p, "" if cwd == "." else cwd))
                 for p in analysis.select_profiles(replica))
