"""The import/rule graph as plain data (the CLI renders it as JSON, DOT or Mermaid).

The data keeps paths as the workspace spells them; the renderers show a name that is not valid
UTF-8 through `printable` (`\\xNN` for each bad byte), as `rulemap check` and the JSON writer
do, before their own escaping."""

from __future__ import annotations

import re
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
    """The graph in Graphviz's DOT: a node per file (a box for an instruction file, a note for
    a rule, an ellipse for an imported file; a rule's label gives its kind on a second line,
    a broken import's target is dashed red with its status), an edge per import labelled with
    its line (`symlink` for an alias), dashed red when the import is broken."""
    shapes = {"instruction": "box", "rule": "note", "scoped-rule": "note", "import": "ellipse"}
    lines = ["digraph rulemap {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
    for n in graph["nodes"]:
        style = "" if n["kind"] in shapes else ", style=dashed, color=red"
        shown = _dot_string(n["id"])
        # `\n` is DOT's line break in a label: added after escaping, so it stays one
        label = shown + (f"\\n{n['kind']}" if n["kind"] not in ("instruction", "import") else "")
        lines.append(
            f'  "{shown}" [shape={shapes.get(n["kind"], "plaintext")}, label="{label}"{style}];'
        )
    for e in graph["edges"]:
        style = "" if e["status"] == "ok" else ", style=dashed, color=red"
        label = _edge_label(e, "@ line ")
        source, target = _dot_string(e["from"]), _dot_string(e["to"])
        lines.append(f'  "{source}" -> "{target}" [label="{label}"{style}];')
    lines.append("}")
    return "\n".join(lines)


def to_mermaid(graph: dict[str, Any]) -> str:
    """The graph as a Mermaid flowchart: a node per file (its path; ids n0, n1, ...), an edge
    per import labelled `@LINE` (`symlink` for an alias), dotted when the import is broken,
    and a broken import's target drawn with a dashed red stroke (class `broken`)."""
    ids = {n["id"]: f"n{i}" for i, n in enumerate(graph["nodes"])}
    lines = ["graph LR"]
    for n in graph["nodes"]:
        lines.append(f'  {ids[n["id"]]}["{_mermaid_text(n["id"])}"]')
        if n["kind"] not in ("instruction", "rule", "scoped-rule", "import"):
            lines.append(f"  class {ids[n['id']]} broken")
    for e in graph["edges"]:
        arrow = "-->" if e["status"] == "ok" else "-.->"
        # quoted: since Mermaid 11 a bare `@` starts an edge id (`e1@-->`), so `|@3|` fails
        label = _mermaid_text(_edge_label(e, "@"))
        lines.append(f'  {ids[e["from"]]} {arrow}|"{label}"| {ids[e["to"]]}')
    lines.append("  classDef broken stroke:#d33,stroke-dasharray:4")
    return "\n".join(lines)


def _edge_label(edge: dict[str, Any], line_prefix: str) -> str:
    return "symlink" if edge["kind"] == "symlink" else f"{line_prefix}{edge['line']}"


# a file name may hold any character but `/` and NUL: a control character (a line break)
# would end a DOT string or a Mermaid statement, so it is shown as `\xNN`, as the terminal
# guard shows it
_CONTROL = re.compile("[\x00-\x1f\x7f]")


def _visible(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", printable(text))


def _dot_string(text: str) -> str:
    """`text` inside a DOT double-quoted string, shown as written: a backslash doubled (else
    Graphviz reads `\\n`, `\\l` as line breaks) and a quote escaped."""
    return _visible(text).replace("\\", "\\\\").replace('"', '\\"')


# what Mermaid reads inside a quoted label: `"` ends it, `#...;` is an entity code, `<` and
# `>` start HTML; each written as an entity code, which Mermaid shows as the character
_MERMAID_ENTITIES = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;"}
_MERMAID_SPECIAL = re.compile('[#"<>]')


def _mermaid_text(text: str) -> str:
    return _MERMAID_SPECIAL.sub(lambda m: _MERMAID_ENTITIES[m.group()], _visible(text))
