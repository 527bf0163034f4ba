"""Claude Code's session log (JSON lines under `~/.claude/projects`): its file tools' calls
as tool steps, a line at a time (a line is forgotten once parsed)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rulemap.profiles.steps import StepKind, ToolStep
from rulemap.profiles.transcript import (
    MIB,
    Line,
    Parsed,
    TranscriptFormat,
    TranscriptPaths,
    items,
    short_reason,
)

# Claude Code's file tools → the step kind, and the input keys naming the path
TOOLS: dict[str, StepKind] = {
    "Read": "read", "Glob": "read", "Grep": "read", "LS": "read",
    "Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
}
PATH_KEYS = ("file_path", "notebook_path", "path")


def read_log(source: Iterable[Line], parsed: Parsed, paths: TranscriptPaths) -> None:
    """A Claude Code session log, a line at a time (a line is forgotten once parsed)."""
    for number, line in source:
        if line is None:
            parsed.report(number, f"a line longer than {MIB}: skipped")
            continue
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError) as exc:
            parsed.report(number, f"not valid JSON: {short_reason(exc)}: skipped")
            continue
        if not isinstance(entry, dict):
            parsed.report(number, "not a JSON object: skipped")
            continue
        if "type" not in entry and "role" not in entry:
            parsed.report(number, "neither a Claude Code log entry (`type`) nor a message "
                                  "(`role`): skipped")
            continue
        message = entry.get("message") if "type" in entry else entry
        if entry.get("type", "assistant") != "assistant" or not isinstance(message, dict):
            continue  # user turns, tool results, summaries: no tool call of the agent's
        cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
        for item in items(message.get("content")):
            if item.get("type") != "tool_use":
                continue
            step = _tool(item, number, paths, cwd)
            if step is not None:
                parsed.add(step)


def _tool(item: dict[str, Any], line: int, paths: TranscriptPaths,
                 cwd: str | None) -> ToolStep | None:
    name = item.get("name")
    kind = TOOLS.get(name) if isinstance(name, str) else None
    if kind is None:
        return None  # Bash, Task, WebFetch…: no file a loader sees
    tool_input = item.get("input")
    if not isinstance(tool_input, dict):
        paths.parsed.report(line, f"{name}: `input` is not an object: skipped")
        return None
    raw = next((tool_input[k] for k in PATH_KEYS if k in tool_input), None)
    if raw is None:
        if name in ("Glob", "Grep", "LS"):
            return None  # a search of the session's directory: no path of its own
        paths.parsed.report(line, f"{name}: no file_path: skipped")
        return None
    if not isinstance(raw, str):
        paths.parsed.report(line, f"{name}: the path is not a string: skipped")
        return None
    key = paths.key(raw, line, cwd)
    return ToolStep(kind, (key,), line, tool=name) if key is not None else None


FORMAT = TranscriptFormat("json-lines", read_log, "a Claude Code session log (JSON lines)",
                          log_dirs=(".claude/projects",))
