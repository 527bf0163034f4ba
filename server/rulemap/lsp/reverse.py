"""The reverse requests (docs/protocol.md): who loads a file (`rulemap/reach`), which of its
lines an agent never sees (`rulemap/unseenLines`), and whether a sentence reaches each agent's
model (`rulemap/why`). Each handler checks the params, asks the host (`rulemap.host.reaching`)
in the worker, over a snapshot of its replica, and sends the answer's JSON."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rulemap.host import CancelToken
from rulemap.lsp.custom import (
    InvalidParams,
    folder_of,
    located,
    params_dict,
    profiles_param,
    uri_param,
)
from rulemap.lsp.reach_lens import generation_of

if TYPE_CHECKING:
    from rulemap.host import Snapshot
    from rulemap.lsp.folders import Overviews
    from rulemap.lsp.state import Engine

OVERVIEW_POLL_S = 0.02
MAX_WHY_TEXT = 10_000  # characters: a sentence or a paragraph, not a file


async def reach_request(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`rulemap/reach`: who loads the file at `uri` (or its 0-based `line`), for every selected
    agent or the `profiles` named — `rulemap reach --json`'s answer, computed in the worker."""
    params = params_dict(raw)
    uri = uri_param(params)
    line = params.get("line")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 0):
        raise InvalidParams("`line` must be a 0-based line number")
    names = profiles_param(params)
    found = await located(engine, uri)
    if found is None:
        return None
    folder, _, key = found
    result = await engine.on_replica(folder, _reached, key, line, names,
                                     cancel=CancelToken())
    if result is not None:
        result["uri"] = engine.canonical(uri)
    return result


async def unseen_lines(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`rulemap/unseenLines`: per agent, the lines of the instruction file, rule or imported
    file at `uri` that it never brings to its model (stripped HTML comments, lines past a
    budget cut) and for how many files; `never` when no file's load includes it. From the
    folder's per-agent overview when it is current (the code lens's), else computed."""
    params = params_dict(raw)
    uri = uri_param(params)
    names = profiles_param(params)
    found = await located(engine, uri)
    if found is None:
        return None
    folder, _, key = found
    generation = generation_of(folder)
    while folder.overviews_for == generation and (
            folder.overviews is None or folder.overviews.generation != generation):
        await asyncio.sleep(OVERVIEW_POLL_S)  # being computed: wait rather than do it twice
    current = folder.overviews
    if current is not None and current.generation != generation:
        current = None
    result = await engine.on_replica(folder, _unseen, key, names, current,
                                     cancel=CancelToken())
    if result is not None:
        result["uri"] = engine.canonical(uri)
    return result


async def why_request(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`rulemap/why`: whether `text` reaches each agent's model for `target` (a workspace path
    or file URI; absent: the start-up load) — `rulemap why --json`'s answer, with `places`
    empty when the text is in no instruction file. `uri`: a file or the folder to look in."""
    params = params_dict(raw)
    uri = uri_param(params)
    text = params.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidParams("`text` (the sentence to look for) is required")
    if len(text) > MAX_WHY_TEXT:
        raise InvalidParams(f"`text` is longer than {MAX_WHY_TEXT:,} characters")
    target = params.get("target")
    if target is not None and not isinstance(target, str):
        raise InvalidParams("`target` must be a workspace path or a file URI")
    names = profiles_param(params)
    indexed = await folder_of(engine, uri)
    if indexed is None:
        return None
    folder = indexed[0]
    key = None
    if target:
        located_target = engine.locate(target) if ":" in target.split("/")[0] else None
        key = located_target[1] if located_target is not None else target.strip("/")
        if located_target is not None and located_target[0] is not folder:
            raise InvalidParams("`target` is in another workspace folder")
        if not key or key.startswith("/") or ".." in key.split("/"):
            raise InvalidParams(f"`target` {target!r} is not a file inside the folder")
    result = await engine.on_replica(folder, _why, text, key, names,
                                     cancel=CancelToken())
    result["uri"] = engine.canonical(uri)
    return result


def _reached(snap: Snapshot, key: str, line: int | None,
             names: list[str] | None) -> dict[str, Any] | None:
    """Runs in the worker: `rulemap/reach`'s answer (None: `line` is past the end)."""
    from rulemap.host.reaching import reach

    if line is not None and line >= len(snap.document(key).lines):
        return None
    return reach(snap, key, line, names).to_json()


def _unseen(snap: Snapshot, key: str, names: list[str] | None,
            current: Overviews | None) -> dict[str, Any] | None:
    """Runs in the worker: `rulemap/unseenLines`' answer (None: not an instruction file,
    rule or imported file of any of the agents)."""
    from rulemap.host.reaching import unseen_lines

    known = {agent.name: agent.glimpses for agent in current.agents} if current else {}
    agents = unseen_lines(snap, key, names, known)
    if agents is None:
        return None
    return {"path": key, "agents": [agent.to_json() for agent in agents]}


def _why(snap: Snapshot, text: str, target: str | None,
         names: list[str] | None) -> dict[str, Any]:
    """Runs in the worker: `rulemap/why`'s answer."""
    from rulemap.host.reaching import why

    return why(snap, text, target, names).to_json()
