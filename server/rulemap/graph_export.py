"""The import/rule graph as plain data (the CLI renders it as JSON, DOT or Mermaid).

The data keeps paths as the workspace spells them; the renderers show a name that is not valid
UTF-8 through `printable` (`\\xNN` for each bad byte), as `rulemap check` and the JSON writer
do, before their own escaping."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulemap.model import ImportStatus
from rulemap.text.names import printable

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def build_graph(ws: Workspace) -> dict[str, Any]:
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []

    def node(path: str, kind: str) -> None:
        if path not in nodes:
            nodes[path] = {"id": path, "kind": kind}

    for path in ws.instruction_files:
        node(path, "instruction")
    for rule in ws.rules:
        doc = ws.document(rule.path)
        node(rule.path, "scoped-rule" if ws.is_scoped(rule.path) else "rule")
        nodes[rule.path]["globs"] = [g.pattern for g in doc.globs or []]
        nodes[rule.path]["matches"] = (
            len(ws.rule_matches(rule.path)) if ws.is_scoped(rule.path) else None
        )
    pending = list(nodes)
    visited: set[str] = set()
    while pending:
        path = pending.pop()
        if path in visited:
            continue
        visited.add(path)
        real = ws.canonical(path) if not path.startswith("/") else path
        if real != path:
            # a symlinked alias (CLAUDE.md → AGENTS.md): one file, drawn once
            node(real, "import")
            nodes[path]["aliasOf"] = real
            edges.append({"from": path, "to": real, "kind": "symlink", "status": "ok", "line": 0})
            pending.append(real)
            continue
        nodes[path]["chars"] = ws.document(path).chars
        for ref, resolved in ws.imports(path):
            status = resolved.status.value
            kind = "file" if resolved.status is ImportStatus.OK else status
            node(resolved.target, "import" if kind == "file" else kind)
            edges.append(
                {
                    "from": path,
                    "to": resolved.target,
                    "kind": "import",
                    "status": status,
                    "line": ref.span.start.line + 1,
                }
            )
            if resolved.status is ImportStatus.OK:
                pending.append(resolved.target)
    return {"root": ws.root, "nodes": sorted(nodes.values(), key=lambda n: n["id"]), "edges": edges}


def to_dot(graph: dict[str, Any]) -> str:
    shapes = {"instruction": "box", "rule": "note", "scoped-rule": "note", "import": "ellipse"}
    lines = ["digraph rulemap {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
    for n in graph["nodes"]:
        style = "" if n["kind"] in shapes else ", style=dashed, color=red"
        shown = printable(n["id"])
        label = shown + (f"\\n{n['kind']}" if n["kind"] not in ("instruction", "import") else "")
        lines.append(
            f'  "{_esc(shown)}" [shape={shapes.get(n["kind"], "plaintext")}, '
            f'label="{_esc(label)}"{style}];'
        )
    for e in graph["edges"]:
        style = "" if e["status"] == "ok" else ", style=dashed, color=red"
        label = _edge_label(e, "@ line ")
        source, target = _esc(printable(e["from"])), _esc(printable(e["to"]))
        lines.append(f'  "{source}" -> "{target}" [label="{label}"{style}];')
    lines.append("}")
    return "\n".join(lines)


def to_mermaid(graph: dict[str, Any]) -> str:
    ids = {n["id"]: f"n{i}" for i, n in enumerate(graph["nodes"])}
    lines = ["graph LR"]
    for n in graph["nodes"]:
        text = printable(n["id"]).replace('"', "'")
        lines.append(f'  {ids[n["id"]]}["{text}"]')
        if n["kind"] not in ("instruction", "rule", "scoped-rule", "import"):
            lines.append(f"  class {ids[n['id']]} broken")
    for e in graph["edges"]:
        arrow = "-->" if e["status"] == "ok" else "-.->"
        lines.append(f"  {ids[e['from']]} {arrow}|{_edge_label(e, '@')}| {ids[e['to']]}")
    lines.append("  classDef broken stroke:#d33,stroke-dasharray:4")
    return "\n".join(lines)


def _edge_label(edge: dict[str, Any], line_prefix: str) -> str:
    return "symlink" if edge["kind"] == "symlink" else f"{line_prefix}{edge['line']}"


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
