"""`rulemap graph` and `rulemap/graph`: the graph of instruction files, rules and imports as
JSON-ready data, and its DOT and Mermaid renderings."""

from __future__ import annotations

from typing import Any

from rulemap.graph_export import to_dot, to_mermaid
from rulemap.host.snapshot import Snapshot, workspace_of

__all__ = ["graph", "to_dot", "to_mermaid"]


def graph(snap: Snapshot) -> dict[str, Any]:
    """`{root, nodes, edges}` of the workspace (docs/protocol.md, `rulemap/graph`)."""
    from rulemap.graph_export import build_graph

    return build_graph(workspace_of(snap))
