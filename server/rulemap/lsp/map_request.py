"""`rulemap/map` (docs/protocol.md): the page `rulemap map --html` writes, for the folder
holding `uri`, as a string — the editor shows it in a webview ("Instruction Map"). Built in
the worker from the graph as the last edit left it, like `rulemap/reach`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulemap.host import CancelToken
from rulemap.lsp.custom import folder_of, params_dict, profiles_param, uri_param

if TYPE_CHECKING:
    from rulemap.lsp.state import Engine
    from rulemap.workspace import Workspace


async def map_request(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`{"html": page}` for the workspace folder `uri` names (the folder, or a file in it);
    None when `uri` is inside no folder. `profiles`: the agents to map (default: the folder's
    selected agents)."""
    params = params_dict(raw)
    uri = uri_param(params)
    names = profiles_param(params)
    indexed = await folder_of(engine, uri)
    if indexed is None:
        return None
    folder = indexed[0]
    html = await engine.on_replica(folder, _page, names,
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
