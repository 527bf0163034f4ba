"""`rulemap/map` (docs/protocol.md): the page `rulemap map --html` writes, for the folder
holding `uri`, as a string — the editor shows it in a webview ("Instruction Map"). Built in
the worker from the graph as the last edit left it, like `rulemap/reach`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulemap.host import CancelToken
from rulemap.lsp.custom import (
    InvalidParams,
    folder_of,
    params_dict,
    profiles_param,
    uri_param,
)

if TYPE_CHECKING:
    from rulemap.host import Snapshot
    from rulemap.lsp.state import Engine


async def map_request(engine: Engine, raw: Any) -> dict[str, Any] | None:
    """`{"html": page}` for the workspace folder `uri` names (the folder, or a file in it);
    None when `uri` is inside no folder. `profiles`: the agents to map (default: the folder's
    selected agents). `cspSource`: the webview's own source (VS Code's `webview.cspSource`),
    which the page's policy lets images come from besides `data:`."""
    params = params_dict(raw)
    uri = uri_param(params)
    names = profiles_param(params)
    images = _csp_source_param(params)
    indexed = await folder_of(engine, uri)
    if indexed is None:
        return None
    folder = indexed[0]
    html = await engine.on_replica(folder, _page, names, images,
                                   cancel=CancelToken())
    return {"html": html}


def _csp_source_param(params: dict[str, Any]) -> list[str]:
    """The `cspSource` param's host sources (none: absent). Refused unless each is a plain
    host source: the value goes into the page's policy, which it must not widen or end."""
    from rulemap.host.maps import SourceRefused, image_sources

    value = params.get("cspSource")
    if value is None:
        return []
    if not isinstance(value, str):
        raise InvalidParams("`cspSource` must be a string")
    try:
        return image_sources(value)
    except SourceRefused as exc:
        raise InvalidParams(f"`cspSource`: {exc}") from None


def _page(snap: Snapshot, names: list[str] | None, images: list[str]) -> str:
    """Runs in the worker: the map's page."""
    from rulemap.host.maps import page

    return page(snap, names, images)
