"""Claude Code's session log (JSON lines under `~/.claude/projects`): its file tools' calls
as tool steps, a line at a time (a line is forgotten once parsed)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rulemap.profiles.steps import StepKind, ToolStep
from rulemap.profiles.transcript import (
    JUDGED_EVERY,
    MIB,
    Line,
    Parsed,
    TranscriptFormat,
    TranscriptPaths,
    loads_line,
    short_reason,
)

# Claude Code's file tools → the step kind, and the input keys naming the path
TOOLS: dict[str, StepKind] = {
    "Read": "read", "Glob": "read", "Grep": "read", "LS": "read",
    "Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
}
PATH_KEYS = ("file_path", "notebook_path", "path")


RECORDS = "are Claude Code log entries"  # what a record is, for the give-up rule's messages


def read_log(source: Iterable[Line], parsed: Parsed, paths: TranscriptPaths) -> None:
    """A Claude Code session log, a line at a time (a line is forgotten once parsed), judged
    as it goes (`Parsed.judge`: an entry is a JSON object with `type` or `role`)."""
    records = 0
    judge_at = JUDGED_EVERY
    for number, line in source:
        if number > judge_at:
            if not parsed.judge(number - 1, records, FORMAT.what, RECORDS):
                return
            judge_at += JUDGED_EVERY
        if line is None:
            parsed.report(number, f"a line longer than {MIB}: skipped")
            continue
        try:
            entry = loads_line(line)
        except (ValueError, RecursionError) as exc:
            if line and not line.isspace():  # a blank line is no problem
                parsed.report(number, f"not valid JSON: {short_reason(exc)}: skipped")
            continue
        if entry.__class__ is not dict:  # (what JSON parses to is a dict, never a subclass)
            parsed.report(number, "not a JSON object: skipped")
            continue
        kind = entry.get("type", _NONE)
        if kind is _NONE:
            if "role" not in entry:
                parsed.report(number, "neither a Claude Code log entry (`type`) nor a message "
                                      "(`role`): skipped")
                continue
            message: Any = entry
        elif kind != "assistant":
            records += 1
            continue  # user turns, tool results, summaries: no tool call of the agent's
        else:
            message = entry.get("message")  # (Any: checked below)
        records += 1
        if message.__class__ is not dict:
            continue
        content = message.get("content")
        if content.__class__ is not list:
            continue
        cwd = entry.get("cwd")
        if cwd.__class__ is not str:
            cwd = None
        for item in content:
            if item.__class__ is dict and item.get("type") == "tool_use":
                step = _tool(item, number, paths, cwd)
                if step is not None:
                    parsed.add(step)


_NONE = object()


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
