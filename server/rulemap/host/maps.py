"""`rulemap map --html` and the server's `rulemap/map`: one self-contained page mapping the
repository's instructions (docs/map.md), its data (`map_data`) and the page (`render_page`).
The CLI writes the page through `check_page_path` / `write_page` (`readers/page_files.py`:
atomically, never over what is not a page); the server's webview names its own image source
(`image_sources`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.readers.page_files import PageRefused, check_page_path, write_page
from rulemap.repo_map.csp import SourceRefused, image_sources

__all__ = [
    "PageRefused", "SourceRefused", "check_page_path", "image_sources", "map_data", "page",
    "render_page", "write_page",
]


def map_data(
    snap: Snapshot, profiles: Sequence[str] | None = None, cwd: str | None = None
) -> dict[str, Any]:
    """The map of the workspace, JSON-ready, for `profiles` (None: the selected agents)
    working in `cwd` (None: the configured one)."""
    from rulemap import analysis
    from rulemap.host.selection import Lead, lead_agent, lead_json, selection
    from rulemap.profiles import get_profile
    from rulemap.repo_map import build_map
    from rulemap.text.names import printable

    ws = workspace_of(snap)
    chosen = ([get_profile(n) for n in profiles] if profiles is not None
              else list(analysis.select_profiles(ws)))
    data = build_map(ws, chosen, cwd)
    # the page opens on the lead agent, and says why each agent is there
    why = {c.name: printable(c.why) for c in selection(snap)}
    for agent in data["agents"]:
        agent["why"] = why.get(agent["name"], "--profiles")
    lead = lead_agent(snap)
    if snap.profile is not None and snap.profile != lead.name:  # the editor's own pick
        lead = Lead(snap.profile, "the rulemap.profile setting")
    data["lead"] = {k: printable(v) for k, v in lead_json(lead).items()}
    return data


def render_page(data: dict[str, Any], image_sources: Sequence[str] = ()) -> str:
    """The page of `map_data`'s answer; `image_sources`: where images may come from besides
    `data:` (a webview's own source)."""
    from rulemap.repo_map.page import render_page as render

    return render(data, image_sources=image_sources)


def page(snap: Snapshot, profiles: Sequence[str] | None, images: Sequence[str]) -> str:
    """The whole page for the selected agents (or `profiles`), in the configured cwd."""
    return render_page(map_data(snap, profiles), image_sources=images)
