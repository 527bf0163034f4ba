"""The map of a repository's instructions (`rulemap map`, `rulemap/map`; docs/map.md), as
plain JSON-ready data the page only shows: the instruction graph (files, rules with their
globs and the directories they match, imports), the directories with each agent's budget use,
the findings of `rulemap check`, and each instruction file's reach per agent.

Computed once, in Python, from the engine's own answers — the profiles' loads
(`repo_map.loads`), `reach.overview`, `graph_export.build_graph`, `analysis.check` — so that
the page (and the editor's webview showing it) never works out what an agent loads.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulemap import analysis
from rulemap.compare import budget_line, summarize
from rulemap.diff.groups import FileSet
from rulemap.diff.groups import summarize as where
from rulemap.graph_export import build_graph
from rulemap.repo_map.loads import AgentLoads, Paths, agent_loads, glimpse_json
from rulemap.repo_map.tree import directories
from rulemap.text.names import printable_data

if TYPE_CHECKING:
    from rulemap.model import Finding
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

FORMAT = 1  # the data's version, for the page
FINDINGS_KEPT = 5000  # listed; beyond, only counted


def build_map(ws: Workspace, profiles: Sequence[Profile] | None = None,
              cwd: str | None = None) -> dict[str, Any]:
    """The map of `ws` for `profiles` (default: the workspace's selected agents) working in
    `cwd` (default: the configuration's), JSON-ready (names that are not valid UTF-8 shown
    as `printable` spells them)."""
    chosen = tuple(profiles) if profiles is not None else analysis.select_profiles(ws)
    where_cwd = ws.config.cwd if cwd is None else cwd
    where_cwd = "" if where_cwd == "." else where_cwd
    paths = Paths()
    loads = [agent_loads(ws, p, where_cwd, paths) for p in chosen]
    graph = _graph(ws, loads, paths, where_cwd)
    findings = analysis.check(ws)
    documents = [n["id"] for n in graph["nodes"] if not n["id"].startswith("/")
                 and n["kind"] in ("instruction", "rule", "scoped-rule", "import")]
    data = {
        "format": FORMAT,
        "root": posixpath.basename(ws.root.rstrip("/")) or ws.root,
        "cwd": where_cwd or ".",
        "files": len(ws.files),
        "agents": [_agent(ws, a, where_cwd) for a in loads],
        "graph": graph,
        "tree": directories(ws.files, loads, documents),
        "loads": {a.profile.name: a.table for a in loads},
        "paths": paths.names,
        # a load's `files` are numbers in `entries`: [path, reason, importer (-1: none),
        # size in the agent's unit, line where the budget stops reading it (1-based), cut]
        "entries": paths.entries,
        "findings": [_finding(f) for f in findings[:FINDINGS_KEPT]],
        "findingsTotal": len(findings),
    }
    return printable_data(data)  # type: ignore[no-any-return]


def _agent(ws: Workspace, loads: AgentLoads, cwd: str) -> dict[str, Any]:
    profile = loads.profile
    start = profile.explain(ws, None, cwd)
    budget = start.budget
    return {
        "name": profile.name, "title": profile.title, "unit": budget.unit,
        "limit": budget.limit, "kind": budget.kind, "setting": budget.setting,
        "sampled": loads.sampled, "sizeWarning": loads.size_warning,
        "startUp": summarize(start),
        "budgetLine": budget_line(start),
    }


def _graph(ws: Workspace, loads: Sequence[AgentLoads], paths: Paths, cwd: str
           ) -> dict[str, Any]:
    """`rulemap graph`'s nodes and edges, each node with its reach per agent (files that
    load it, cut, left out, or why never) and each scoped rule with where its matches are;
    plus the files other agents read by their own names and what those loads import."""
    graph = build_graph(ws)
    _add_agent_files(ws, graph, paths)
    every = FileSet(ws.files)
    for node in graph["nodes"]:
        path = node["id"]
        node["reach"] = {a.profile.name: _reach(ws, a, path, cwd) for a in loads}
        if node["kind"] == "scoped-rule":
            matched = where(sorted(_rule_matches(ws, loads, node)), every)
            node["matched"] = {"files": matched.count, "under": matched.under,
                               "every": matched.every,
                               "areas": [[p, n] for p, n in matched.areas]}
    return {"nodes": graph["nodes"], "edges": graph["edges"],
            "nested": _nested_edges(loads, paths, {n["id"] for n in graph["nodes"]})}


def _nested_edges(loads: Sequence[AgentLoads], paths: Paths, drawn: set[str]
                  ) -> list[dict[str, Any]]:
    """What a directory inherits, per agent: an edge from the instruction file a nested one
    loads after (its parent directory's, or the root's) to the nested file, for each agent
    whose loads put them so — read off the agents' own loads, in their order."""
    agents_of: dict[tuple[str, str], list[str]] = {}
    for agent in loads:
        seen: set[tuple[int, ...]] = set()
        for load in agent.table:
            order = tuple(load["files"])
            if order in seen:
                continue
            seen.add(order)
            before: str | None = None
            for number in order:
                path_number, reason, importer = paths.entries[number][:3]
                if importer >= 0 or reason not in ("project", "nested", "user"):
                    continue
                path = paths.names[path_number]
                if reason == "nested" and before is not None and before != path:
                    names = agents_of.setdefault((before, path), [])
                    if agent.profile.name not in names:
                        names.append(agent.profile.name)
                before = path
    return [{"from": a, "to": b, "agents": names}
            for (a, b), names in sorted(agents_of.items()) if a in drawn and b in drawn]


def _rule_matches(ws: Workspace, loads: Sequence[AgentLoads], node: dict[str, Any]
                  ) -> list[str]:
    """The files a scoped rule's globs match: a rule of the workspace's layout as its index
    says (one look-up; asking an agent's dialect rule by rule took 13 s of a map of 2,000
    rules), another agent's rule file as that agent matches it (Copilot's `applyTo`,
    Cursor's `globs`); the node gets the globs it has none of."""
    path = node["id"]
    if ws.is_rule(path):
        return ws.rule_matches(path)
    for agent in loads:
        profile = agent.profile
        if not profile.own_glob_dialect:
            continue
        scoped = profile.rule_globs(ws, path)
        if scoped is not None:
            node.setdefault("globs", [g.pattern for g in scoped.globs])
            return profile.rule_matches(ws, path)
    return []


_KIND_OF_REASON = {"import": "import", "scoped": "scoped-rule", "rule": "rule"}


def _add_agent_files(ws: Workspace, graph: dict[str, Any], paths: Paths) -> None:
    """The workspace files the agents' loads hold, or that an agent reads by its own name
    (`analysis.agent_documents`), that the default model's graph lacks; and an edge for each
    import those loads follow that the graph lacks (`line` 0: the load does not say)."""
    nodes = {n["id"]: n for n in graph["nodes"]}
    edges = {(e["from"], e["to"]) for e in graph["edges"]}
    added: list[dict[str, Any]] = []

    def node(path: str, kind: str) -> None:
        if path not in nodes and not path.startswith("/"):
            nodes[path] = {"id": path, "kind": kind, "chars": ws.document(path).chars}
            added.append(nodes[path])

    for entry in paths.entries:
        path, reason, importer = paths.names[entry[0]], entry[1], entry[2]
        node(path, _KIND_OF_REASON.get(reason, "instruction"))
        if importer < 0:
            continue
        source = paths.names[importer]
        real = source if source.startswith("/") else ws.canonical(source)
        if (source, path) not in edges and (real, path) not in edges:  # an alias's imports
            edges.add((source, path))  # are its target's, drawn once
            graph["edges"].append({"from": source, "to": path, "kind": "import",
                                   "status": "ok", "line": 0})
    for path in analysis.agent_documents(ws):
        node(path, "instruction")
    graph["nodes"] = sorted([*graph["nodes"], *added], key=lambda n: n["id"])


def _reach(ws: Workspace, loads: AgentLoads, path: str, cwd: str) -> dict[str, Any]:
    from rulemap.reach import why_never

    out = glimpse_json(loads.glimpses.get(path))
    if not (out["files"] or out["leftOut"]) and not path.startswith("/"):
        out["never"] = why_never(ws, loads.profile, path, False, cwd)  # `rulemap reach`'s why
    return out


def _finding(finding: Finding) -> dict[str, Any]:
    start = finding.span.start
    return {"path": finding.path, "line": start.line + 1, "col": start.col + 1,
            "severity": finding.severity, "code": finding.code, "message": finding.message,
            "profile": finding.profile}
