"""The repository's directories for the map, aggregated so that a 20,000-file tree stays a
small page: one entry per directory (never per file), with its file counts and, per agent,
the largest share of the budget any file under it uses, how many files under it the budget
cuts or leaves something out for, and which loads its own files get (the "why" on click).
The page expands a directory's children on demand from this list."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from typing import Any

from rulemap.repo_map.loads import AgentLoads

LOADS_PER_DIRECTORY = 6  # per agent, the most common loads of a directory's own files


def directories(files: Iterable[str], agents: Sequence[AgentLoads],
                documents: Iterable[str]) -> list[dict[str, Any]]:
    """Every directory holding a file, root first then depth-first in name order, each
    `{path, name, files, own, docs, children: [index], agents: {name: [share, over,
    leftOut, size, loaded, warned]}, loads: {name: [[load, files], ...]}}`; `share` in
    thousandths (None: no budget), `size` the largest load of a file under it in the agent's
    unit and `loaded` the most files one loads (what colours the tree for an agent without a
    budget), `warned` how many files under it load a file past the agent's size warning;
    `docs` the instruction files and rules directly in it."""
    own: dict[str, list[str]] = {"": []}
    for path in files:
        directory = posixpath.dirname(path)
        own.setdefault(directory, []).append(path)
        while directory and posixpath.dirname(directory) not in own:
            directory = posixpath.dirname(directory)
            own.setdefault(directory, [])
    children: dict[str, list[str]] = {}
    for directory in own:
        if directory:
            children.setdefault(posixpath.dirname(directory), []).append(directory)
    docs: dict[str, int] = {}
    for path in documents:
        docs[posixpath.dirname(path)] = docs.get(posixpath.dirname(path), 0) + 1
    order: list[str] = []
    stack = [""]
    while stack:
        directory = stack.pop()
        order.append(directory)
        stack.extend(sorted(children.get(directory, ()), reverse=True))
    index = {directory: i for i, directory in enumerate(order)}
    entries: list[dict[str, Any]] = []
    for directory in order:
        entries.append({
            "path": directory, "name": posixpath.basename(directory) or ".",
            "files": 0, "own": len(own[directory]), "docs": docs.get(directory, 0),
            "children": [index[c] for c in sorted(children.get(directory, ()))],
            "agents": {}, "loads": {},
        })
    for agent in agents:
        _agent_stats(agent, order, own, entries)
    # files and the agents' figures summed up the tree, deepest first
    for directory in reversed(order):
        entry = entries[index[directory]]
        entry["files"] += entry["own"]
        if directory:
            parent = entries[index[posixpath.dirname(directory)]]
            parent["files"] += entry["files"]
            for name, (share, over, left, size, loaded, warned) in entry["agents"].items():
                mine = parent["agents"][name]
                mine[0] = _larger(mine[0], share)
                mine[1] += over
                mine[2] += left
                mine[3] = max(mine[3], size)
                mine[4] = max(mine[4], loaded)
                mine[5] += warned
    return entries


def _agent_stats(agent: AgentLoads, order: list[str], own: dict[str, list[str]],
                 entries: list[dict[str, Any]]) -> None:
    name = agent.profile.name
    for position, directory in enumerate(order):
        share: int | None = None
        over = left = size = loaded = warned = 0
        counts: dict[int, int] = {}
        for path in own[directory]:
            number = agent.of_file.get(path)
            if number is None:
                continue
            load = agent.table[number]
            counts[number] = counts.get(number, 0) + 1
            share = _larger(share, load["share"])
            over += 1 if load["over"] else 0
            left += 1 if load["leftOut"] else 0
            size = max(size, load["total"])
            loaded = max(loaded, len(load["files"]))
            warned += 1 if load["warned"] else 0
        entry = entries[position]
        entry["agents"][name] = [share, over, left, size, loaded, warned]
        if counts:
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            entry["loads"][name] = [[n, c] for n, c in ranked[:LOADS_PER_DIRECTORY]]


def _larger(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else max(a, b)
