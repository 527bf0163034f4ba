"""`rulemap/map` (docs/protocol.md): the page `rulemap map --html` writes, for the folder
holding `uri`, as a string — the editor shows it in a webview ("Instruction Map"). Built in
the worker from the graph as the last edit left it, like `rulemap/reach`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulemap.host import CancelToken
from rulemap.lsp.custom import InvalidParams, params_dict
from rulemap.lsp.folders import path_of

if TYPE_CHECKING:
    from rulemap.lsp.state import Engine
    from rulemap.workspace import Workspace


async def map_request(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`{"html": page}` for the workspace folder `uri` names (the folder, or a file in it);
    None when `uri` is inside no folder. `profiles`: the agents to map (default: the folder's
    selected agents)."""
    from rulemap.host.catalog import agent_names

    params = params_dict(raw)
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise InvalidParams("`uri` (a string) is required")
    names = params.get("profiles")
    if names is not None and (not isinstance(names, list | tuple)
                              or not all(isinstance(n, str) for n in names)):
        raise InvalidParams("`profiles` must be a list of profile names")
    unknown = [n for n in names or () if n not in agent_names()]
    if unknown:
        raise InvalidParams(f"unknown profile `{unknown[0]}`; available: "
                            f"{', '.join(agent_names())}")
    path = path_of(uri)
    folder = engine.folders.get(path.rstrip("/")) if path else None
    if folder is None:
        located = engine.locate(uri)
        if located is None:
            return None
        folder = located[0]
    if await engine.ready(folder) is None:
        return None
    html = await engine.on_replica(folder, _page, list(names) if names is not None else None,
                                   cancel=CancelToken())
    return {"html": html}


def _page(replica: Workspace, names: list[str] | None) -> str:
    """Runs in the worker: the map's page."""
    from rulemap import analysis
    from rulemap.profiles import get_profile
    from rulemap.repo_map import build_map
    from rulemap.repo_map.page import render_page

    profiles = ([get_profile(n) for n in names] if names is not None
                else list(analysis.select_profiles(replica)))
    return render_page(build_map(replica, profiles))
