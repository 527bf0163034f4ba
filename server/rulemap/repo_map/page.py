"""The map as one self-contained HTML page (docs/map.md): the template, its style, the
vendored graph library (cytoscape.js, MIT: its licence heads the file) and the page's script
inlined, the map's data embedded as JSON. No network reference: it opens from a CI artifact,
a file, or the editor's webview. A strict Content-Security-Policy heads it (`repo_map.csp`):
its scripts and styles run by the render's nonce, and nothing else does."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from typing import Any

from rulemap.readers.page_files import asset
from rulemap.repo_map.csp import new_nonce, policy

_PLACEHOLDER = re.compile(r"@(TITLE|POLICY|NONCE|STYLE|DATA|CYTOSCAPE|APP)@")


def render_page(data: dict[str, Any], *, image_sources: Sequence[str] = (),
                nonce: str | None = None) -> str:
    """The page for `build_map`'s `data`, under a policy that lets images come from `data:`
    and `image_sources` (host sources: the editor's webview names its own), with `nonce`
    (default: a fresh one — give one only to test)."""
    nonce = new_nonce() if nonce is None else nonce
    parts = {
        "TITLE": html.escape(str(data.get("root", ""))),
        # the policy's characters are checked (`csp.policy`): no quote can end the attribute
        "POLICY": html.escape(policy(nonce, image_sources), quote=False),
        "NONCE": nonce,
        "STYLE": _in_element(asset("map.css"), "style"),
        "DATA": embedded_json(packed(data)),
        "CYTOSCAPE": _in_element(asset("cytoscape.min.js"), "script"),
        "APP": _in_element(asset("map.js"), "script"),
    }
    # one pass: what is inserted is never searched for placeholders again
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], asset("map.html"))


def packed(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its directory list packed as rows (the page unpacks them, map.js
    `unpackTree`): one directory an array `[path, files, own, docs, children, [figures per
    agent], [loads per agent]]` in the order of `agents`, its name its path's last part —
    not objects repeating every key and agent name. The tree was three fifths of a 60,000-file
    repository's page (1.9 of 3.5 MB)."""
    tree = data.get("tree")
    if not isinstance(tree, list):
        return data
    names = [a["name"] for a in data.get("agents", [])]
    rows = [[d["path"], d["files"], d["own"], d["docs"], d["children"],
             [d["agents"].get(n) for n in names], [d["loads"].get(n) for n in names]]
            for d in tree]
    return {**data, "tree": {"agents": names, "rows": rows}}


def embedded_json(data: object) -> str:
    """`data` as JSON safe inside `<script type="application/json">`: no `</` (which could
    close the element) nor `<!--` (which changes how the element's end is found) survives."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _in_element(text: str, tag: str) -> str:
    """A script or style's text that cannot end its element early."""
    return re.sub(rf"</({tag})", r"<\\/\1", text, flags=re.IGNORECASE).replace(
        "<!--", "<\\!--")
