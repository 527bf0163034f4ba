"""Claude Code's `InstructionsLoaded` hook events (one JSON object a line), as the hook
configuration shipped in examples/hooks/claude-code/settings.json appends them.

The event (https://code.claude.com/docs/en/hooks#instructionsloaded; added in Claude Code
2.1.69, CHANGELOG.md of anthropics/claude-code) fires when a CLAUDE.md or `.claude/rules/*.md`
file enters the context. Its input carries the common fields (`session_id`,
`transcript_path`, `cwd`, `hook_event_name`) and `file_path` (absolute), `memory_type`
(`User`, `Project`, `Local`, `Managed`) and `load_reason`: `session_start` (the start-up
load), `nested_traversal` (a directory's memory, the first time a file below it is touched),
`path_glob_match` (a path-scoped rule, the first time a file its `paths` match is touched) —
both with `trigger_file_path`, the touched file —, `include` (an `@import`, with
`parent_file_path`) and `compact` (re-loaded after a compaction).

A file accumulates the events of every session the hook saw: the last session's are read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rulemap.profiles.load_log import (
    LoadLog,
    LoadLogError,
    LoadLogFormat,
    LogLine,
    ObservedLoad,
    json_objects,
)

EVENT = "InstructionsLoaded"
USER_TYPES = ("User", "Managed")  # memory types that are no project's file
TRIGGERED = ("nested_traversal", "path_glob_match")


def detect(text: str) -> bool:
    return f'"{EVENT}"' in text and '"hook_event_name"' in text


def read(lines: Iterable[LogLine]) -> LoadLog:
    events = [(n, e) for n, e in json_objects(lines)]
    sessions = [e["session_id"] for _, e in events if isinstance(e.get("session_id"), str)
                and e.get("hook_event_name") == EVENT]
    last = sessions[-1] if sessions else None
    # the triggers are files Claude Code's Read tool opened: it opens no directory (one fails
    # with EISDIR: anthropics/claude-code#10890), so no trigger is asked whether it is one
    log = LoadLog("claude-code", triggers_are_files=True)
    step_of_file: dict[str, int | None] = {}
    for number, event in events:
        if event.get("hook_event_name") != EVENT:
            log.skipped_lines += 1
            continue
        if last is not None and event.get("session_id", last) != last:
            continue  # an earlier session's
        load = _load(number, event, log, step_of_file)
        log.loads.append(load)
        if load.compared and load.path is not None:
            step_of_file.setdefault(load.path, load.step)
    return log


def _load(number: int, event: dict[str, Any], log: LoadLog,
          step_of_file: dict[str, int | None]) -> ObservedLoad:
    path = event.get("file_path")
    if not isinstance(path, str) or not path:
        raise LoadLogError(number, f"an {EVENT} event without `file_path`")
    reason = event.get("load_reason")
    if not isinstance(reason, str):
        raise LoadLogError(number, f"an {EVENT} event without `load_reason`")
    cwd = event.get("cwd")
    if log.cwd is None and isinstance(cwd, str) and cwd:
        log.cwd = cwd
    trigger = event.get("trigger_file_path")
    parent = event.get("parent_file_path")
    parent = parent if isinstance(parent, str) and parent else None
    step: int | None = None
    if reason == "session_start":
        step = 0
    elif reason in TRIGGERED and isinstance(trigger, str) and trigger:
        step = log.step_of(trigger)
    elif reason == "include":
        if parent is not None and parent in step_of_file:
            step = step_of_file[parent]
        elif isinstance(trigger, str) and trigger:
            step = log.step_of(trigger)
        else:
            step = 0 if not log.triggers else None
    user = event.get("memory_type") in USER_TYPES
    return ObservedLoad(path, step, reason, number, user=user, compared=reason != "compact",
                        parent=parent)


FORMAT = LoadLogFormat(
    what="Claude Code InstructionsLoaded hook events (JSON lines)",
    detect=detect,
    read=read,
    example=".rulemap/instructions-loaded.jsonl",
    how="appended by the hook of examples/hooks/claude-code/settings.json",
    source="https://code.claude.com/docs/en/hooks#instructionsloaded",
)
