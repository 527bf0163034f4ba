"""Gemini CLI's session log, read for its just-in-time context: the GEMINI.md files a tool
call brought when it touched a path (google-gemini/gemini-cli).

The log (`packages/core/src/services/chatRecordingService.ts`, types in
`chatRecordingTypes.ts`) is JSON lines under `~/.gemini/tmp/<project>/chats/session-*.jsonl`:
a metadata line (`sessionId`, `projectHash`, `startTime`, …), then message records (`id`,
`type`, `content`, and for `gemini` messages `toolCalls`: `id`, `name`, `args`, `result`) —
a record written again with the same `id` replaces the earlier one — plus `$set` and
`$rewindTo` records. Older releases wrote one JSON document (`{…, "messages": [...]}`).

The "high-intent" tools (`read_file`, `list_directory`, `write_file`, `replace`,
`read_many_files`: `packages/core/src/tools/jit-context.ts`) call `discoverJitContext` for the
path they touch and append what it found to their output between
`--- Newly Discovered Project Context ---` and `--- End Project Context ---`
(`JIT_CONTEXT_PREFIX`/`JIT_CONTEXT_SUFFIX`); each file inside is framed by
`--- Context from: PATH ---` … `--- End of Context from: PATH ---` with its absolute path
(`concatenateInstructions`, `packages/core/src/utils/memoryDiscovery.ts`). Each such tool
call is a step, whether it brought anything or not. The start-up load is not in the log. A
rewind does not make Gemini forget what it loaded, so rewound messages are read too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from rulemap.profiles.gemini.paths import JIT_TOOLS
from rulemap.profiles.load_log import (
    LoadLog,
    LoadLogError,
    LoadLogFormat,
    LogLine,
    ObservedLoad,
    json_objects,
    log_text,
    strings_in,
)

JIT_START = "--- Newly Discovered Project Context ---"
JIT_END = "--- End Project Context ---"
CONTEXT_FROM = re.compile(r"^--- Context from: (.+) ---$", re.MULTILINE)
PATH_ARGS = ("file_path", "dir_path", "path", "absolute_path")
REASON = "jit"


def detect(text: str) -> bool:
    return JIT_START in text or ('"projectHash"' in text and '"sessionId"' in text)


def read(lines: Iterable[LogLine]) -> LoadLog:
    log = LoadLog("gemini", start_up=False)
    for number, call in _tool_calls(lines):
        name = call.get("name")
        if name not in JIT_TOOLS:
            continue
        args = call.get("args")
        trigger = _path_arg(args) if isinstance(args, dict) else None
        step = log.step_of(trigger) if trigger is not None else None
        for text in strings_in(call.get("result")):
            for path in _jit_files(text):
                log.loads.append(ObservedLoad(path, step, REASON, number))
    return log


def _tool_calls(lines: Iterable[LogLine]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each tool call of the log, the last version of each (by message and call id), in the
    order the messages first appeared."""
    messages: dict[str, tuple[int, dict[str, Any]]] = {}
    for number, record in _records(lines):
        if isinstance(record.get("id"), str):
            messages[record["id"]] = (number, record)
    for number, message in messages.values():
        calls = message.get("toolCalls")
        if isinstance(calls, list):
            yield from ((number, c) for c in calls if isinstance(c, dict))


def _records(lines: Iterable[LogLine]) -> Iterator[tuple[int, dict[str, Any]]]:
    text = log_text(lines)
    stripped = text.lstrip()
    if stripped.startswith("{") and '"messages"' in text:
        try:
            whole = json.loads(text)
        except (ValueError, RecursionError):
            whole = None  # JSON lines after all
        if isinstance(whole, dict):
            messages = whole.get("messages")
            if not isinstance(messages, list):
                raise LoadLogError(None, "a Gemini CLI session document whose `messages` is "
                                         "not a list")
            yield from ((1, m) for m in messages if isinstance(m, dict))
            return
    yield from json_objects(lines)


def _path_arg(args: dict[str, Any]) -> str | None:
    for key in PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _jit_files(text: str) -> list[str]:
    """The files of every JIT block in `text`, in order."""
    found: list[str] = []
    start = text.find(JIT_START)
    while start >= 0:
        end = text.find(JIT_END, start)
        block = text[start + len(JIT_START): end if end >= 0 else len(text)]
        found.extend(m.group(1) for m in CONTEXT_FROM.finditer(block))
        if end < 0:
            break
        start = text.find(JIT_START, end)
    return found


FORMAT = LoadLogFormat(
    what="a Gemini CLI session log (its just-in-time context)",
    detect=detect,
    read=read,
    example="~/.gemini/tmp/PROJECT/chats/session-….jsonl",
    how="written by Gemini CLI as it runs",
    source="google-gemini/gemini-cli: packages/core/src/tools/jit-context.ts, "
           "packages/core/src/services/chatRecordingService.ts",
)
