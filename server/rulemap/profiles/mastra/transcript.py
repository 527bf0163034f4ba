"""Mastra's message list (the AI SDK's messages): one tool step per message holding completed
tool calls (the model step after them), the path-like arguments of each call as its paths."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rulemap.profiles.steps import ToolStep
from rulemap.profiles.transcript import Parsed, TranscriptFormat, TranscriptPaths, items

# Mastra's AgentsMDInjector reads these arguments of a tool call as paths
PATH_KEYS = ("path", "file", "filePath", "target", "targetPath", "dest", "destination")
_EDIT_WORDS = ("write", "edit", "create", "delete", "remove", "move", "rename", "mkdir",
               "patch", "replace", "append", "insert", "copy", "save")


def read_messages(data: list[Any], parsed: Parsed, paths: TranscriptPaths) -> None:
    """One step per message holding completed tool calls (the model step after them)."""
    completed = {
        part.get("toolCallId")
        for message in data if isinstance(message, dict)
        for part in items(message.get("content"))
        if part.get("type") == "tool-result" and isinstance(part.get("toolCallId"), str | int)
    }
    for number, message in enumerate(data, 1):
        if not isinstance(message, dict):
            parsed.report(number, f"entry {number}: not a message object: skipped")
            continue
        calls: list[tuple[str, dict[str, Any]]] = []
        for part in items(message.get("content")):
            call_id = part.get("toolCallId")
            if part.get("type") == "tool-call" and isinstance(call_id, str | int) \
                    and call_id in completed:
                calls.append((str(part.get("toolName", "")), _args(part.get("args"))))
        for invocation in _invocations(message):
            if invocation.get("state") == "result":
                calls.append((str(invocation.get("toolName", "")),
                              _args(invocation.get("args"))))
        for part in items(message.get("parts")):
            kind = part.get("type")
            if isinstance(kind, str) and kind.startswith("tool-") and kind != "tool-invocation" \
                    and part.get("state") == "output-available":  # AI SDK 5 parts
                calls.append((kind[len("tool-"):], _args(part.get("input"))))
        keys: list[str] = []
        edits = False
        for tool, args in calls:
            found = [v for k in PATH_KEYS if isinstance(v := args.get(k), str)]
            if found:
                edits = edits or any(w in tool.lower() for w in _EDIT_WORDS)
            keys.extend(paths.keys(found, number))
        if keys:
            parsed.add(ToolStep("edit" if edits else "read", tuple(dict.fromkeys(keys)), number))


def _invocations(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from items(message.get("toolInvocations"))
    for part in items(message.get("parts")):
        if part.get("type") == "tool-invocation" and isinstance(part.get("toolInvocation"),
                                                                dict):
            yield part["toolInvocation"]


def _args(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


FORMAT = TranscriptFormat("messages", read_messages, "a Mastra message list")
