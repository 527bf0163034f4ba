"""A run's tool steps from text (pure: no disk): command-line tokens, a JSON list of steps, a
Claude Code session log (JSON lines) or a Mastra-style message list, told apart by shape.

Paths come out workspace-relative (`/` separators; a directory a search ran over ends in `/`
once the engine knows it is one). An absolute path is made relative to the root; one outside
it is reported and skipped. A line or entry that is not understood is reported with its line
number (transcripts) or 1-based entry number (JSON lists) and skipped, never raised.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rulemap.profiles.steps import STEP_KINDS, Problem, StepKind, ToolStep

# Claude Code's file tools → the step kind, and the input keys naming the path
CLAUDE_TOOLS: dict[str, StepKind] = {
    "Read": "read", "Glob": "read", "Grep": "read", "LS": "read",
    "Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
}
CLAUDE_PATH_KEYS = ("file_path", "notebook_path", "path")
# Mastra's AgentsMDInjector reads these arguments of a tool call as paths
MASTRA_PATH_KEYS = ("path", "file", "filePath", "target", "targetPath", "dest", "destination")
_EDIT_WORDS = ("write", "edit", "create", "delete", "remove", "move", "rename", "mkdir",
               "patch", "replace", "append", "insert", "copy", "save")


@dataclass
class Parsed:
    """The steps of one input, what was not understood, and the format found."""

    format: str  # "steps", "claude-code", "mastra", "command-line", "empty"
    steps: list[ToolStep] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class _Paths:
    """Makes a transcript's paths workspace-relative, reporting those outside the root."""

    def __init__(self, root: str, base: str | None, parsed: Parsed):
        self.root = posixpath.normpath(root.replace("\\", "/"))
        self.base = posixpath.normpath(base.replace("\\", "/")) if base else self.root
        self.parsed = parsed

    def key(self, raw: str, line: int | None, base: str | None = None) -> str | None:
        """`raw` as a workspace key (`./` for the root itself), or None (reported)."""
        text = raw.strip().replace("\\", "/")
        if not text or "\0" in text:
            self.parsed.problems.append(Problem(line, f"empty or invalid path {raw!r}: skipped"))
            return None
        directory = text.endswith("/")
        start = posixpath.normpath(base.replace("\\", "/")) if base else self.base
        absolute = posixpath.normpath(text if text.startswith("/") else
                                      posixpath.join(start, text))
        if absolute == self.root:
            return "./"
        if not absolute.startswith(self.root.rstrip("/") + "/"):
            self.parsed.problems.append(Problem(
                line, f"`{raw}` is outside the workspace root {self.root}: skipped (pass "
                "--root to replay it against another root)"))
            return None
        key = absolute[len(self.root.rstrip("/")) + 1:]
        return key + "/" if directory else key


def parse_tokens(tokens: Iterable[str], root: str, base: str | None = None) -> Parsed:
    """Command-line steps, one each: `read:src/a.ts`, `edit:packages/api/x.py` (several paths
    of one step: `read:a.ts,b.ts`). Relative paths are relative to `base` (default: root)."""
    parsed = Parsed("command-line")
    paths = _Paths(root, base, parsed)
    for number, token in enumerate(tokens, 1):
        kind, sep, rest = token.partition(":")
        if not sep or kind not in STEP_KINDS or not rest:
            parsed.problems.append(Problem(
                number, f"step {token!r} is not KIND:PATH (KIND read or edit), e.g. "
                "read:src/a.ts"))
            continue
        keys = [k for raw in rest.split(",") if (k := paths.key(raw, number)) is not None]
        if keys:
            parsed.steps.append(ToolStep(kind, tuple(keys), number))  # type: ignore[arg-type]
    return parsed


def parse_text(text: str, root: str, base: str | None = None) -> Parsed:
    """Any supported input, told apart by its shape. `base`: what relative paths are
    relative to when the input does not say (default: the root)."""
    text = text.lstrip("\ufeff")
    stripped = text.strip()
    if not stripped:
        parsed = Parsed("empty")
        parsed.problems.append(Problem(None, "the input is empty: no steps"))
        return parsed
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            parsed = Parsed("steps")
            parsed.problems.append(Problem(getattr(exc, "lineno", None),
                                           f"not valid JSON: {_short(exc)}"))
            return parsed
        return _parse_list(data, root, base)
    if stripped.startswith("{"):
        whole = _whole_object(stripped)
        if isinstance(whole, dict):
            for name in ("steps", "messages"):
                if isinstance(whole.get(name), list):
                    return _parse_list(whole[name], root, base)
        return _parse_lines(text, root, base)
    tokens = stripped.split()
    if all(":" in t for t in tokens[:3]):
        return parse_tokens(tokens, root, base)
    parsed = Parsed("unknown")
    parsed.problems.append(Problem(1, "not a supported input: expected a JSON list of steps "
                           "or messages, a Claude Code session log (JSON lines), or steps "
                           "such as read:src/a.ts"))
    return parsed


def parse_steps(data: object, root: str, base: str | None = None) -> Parsed:
    """Steps given as data (`[{"kind": "read", "paths": [...]}, ...]`, as the language
    server's `rulemap/session` takes them)."""
    if isinstance(data, list) and any(isinstance(e, dict) and ("role" in e or "parts" in e)
                                      for e in data):
        parsed = Parsed("steps")
        parsed.problems.append(Problem(None, "`steps` holds messages: pass a transcript file"))
        return parsed
    return _parse_list(data, root, base)


def _whole_object(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200]


def _parse_list(data: object, root: str, base: str | None) -> Parsed:
    if not isinstance(data, list):
        parsed = Parsed("steps")
        parsed.problems.append(Problem(None, "expected a JSON list"))
        return parsed
    messages = any(isinstance(e, dict) and ("role" in e or "parts" in e) for e in data)
    if messages:
        return _parse_mastra(data, root, base)
    parsed = Parsed("steps")
    paths = _Paths(root, base, parsed)
    for number, entry in enumerate(data, 1):
        where = f"entry {number}"
        if not isinstance(entry, dict):
            parsed.problems.append(Problem(number, f"{where}: not an object: skipped"))
            continue
        kind = entry.get("kind")
        raw = entry.get("paths")
        if kind not in STEP_KINDS:
            parsed.problems.append(Problem(
                number, f"{where}: `kind` must be \"read\" or \"edit\", not {kind!r}: skipped"))
            continue
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
            parsed.problems.append(Problem(
                number, f"{where}: `paths` must be a list of strings: skipped"))
            continue
        keys = [k for p in raw if (k := paths.key(p, number)) is not None]
        if keys:
            parsed.steps.append(ToolStep(kind, tuple(keys), number))
    return parsed


# ----------------------------------------------------------------------------- Claude Code


def _parse_lines(text: str, root: str, base: str | None) -> Parsed:
    parsed = Parsed("claude-code")
    paths = _Paths(root, base, parsed)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError) as exc:
            parsed.problems.append(Problem(number, f"not valid JSON: {_short(exc)}: skipped"))
            continue
        if not isinstance(entry, dict):
            parsed.problems.append(Problem(number, "not a JSON object: skipped"))
            continue
        if "type" not in entry and "role" not in entry:
            parsed.problems.append(Problem(
                number, "neither a Claude Code log entry (`type`) nor a message (`role`): "
                "skipped"))
            continue
        message = entry.get("message") if "type" in entry else entry
        if entry.get("type", "assistant") != "assistant" or not isinstance(message, dict):
            continue  # user turns, tool results, summaries: no tool call of the agent's
        cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
        for item in _items(message.get("content")):
            if item.get("type") != "tool_use":
                continue
            step = _claude_tool(item, number, paths, cwd)
            if step is not None:
                parsed.steps.append(step)
    return parsed


def _items(content: object) -> Iterator[dict[str, Any]]:
    if isinstance(content, list):
        yield from (item for item in content if isinstance(item, dict))


def _claude_tool(item: dict[str, Any], line: int, paths: _Paths,
                 cwd: str | None) -> ToolStep | None:
    name = item.get("name")
    kind = CLAUDE_TOOLS.get(name) if isinstance(name, str) else None
    if kind is None:
        return None  # Bash, Task, WebFetch…: no file a loader sees
    tool_input = item.get("input")
    if not isinstance(tool_input, dict):
        paths.parsed.problems.append(Problem(line, f"{name}: `input` is not an object: "
                                                   "skipped"))
        return None
    raw = next((tool_input[k] for k in CLAUDE_PATH_KEYS if k in tool_input), None)
    if raw is None:
        if name in ("Glob", "Grep", "LS"):
            return None  # a search of the session's directory: no path of its own
        paths.parsed.problems.append(Problem(line, f"{name}: no file_path: skipped"))
        return None
    if not isinstance(raw, str):
        paths.parsed.problems.append(Problem(line, f"{name}: the path is not a string: "
                                                   "skipped"))
        return None
    key = paths.key(raw, line, cwd)
    return ToolStep(kind, (key,), line) if key is not None else None


# ----------------------------------------------------------------------------- Mastra


def _parse_mastra(data: list[Any], root: str, base: str | None) -> Parsed:
    """One step per message holding completed tool calls (the model step after them)."""
    parsed = Parsed("mastra")
    paths = _Paths(root, base, parsed)
    completed = {
        part.get("toolCallId")
        for message in data if isinstance(message, dict)
        for part in _items(message.get("content"))
        if part.get("type") == "tool-result" and isinstance(part.get("toolCallId"), str | int)
    }
    for number, message in enumerate(data, 1):
        if not isinstance(message, dict):
            parsed.problems.append(Problem(number, f"entry {number}: not a message object: "
                                                   "skipped"))
            continue
        calls: list[tuple[str, dict[str, Any]]] = []
        for part in _items(message.get("content")):
            call_id = part.get("toolCallId")
            if part.get("type") == "tool-call" and isinstance(call_id, str | int) \
                    and call_id in completed:
                calls.append((str(part.get("toolName", "")), _args(part.get("args"))))
        for invocation in _invocations(message):
            if invocation.get("state") == "result":
                calls.append((str(invocation.get("toolName", "")),
                              _args(invocation.get("args"))))
        for part in _items(message.get("parts")):
            kind = part.get("type")
            if isinstance(kind, str) and kind.startswith("tool-") and kind != "tool-invocation" \
                    and part.get("state") == "output-available":  # AI SDK 5 parts
                calls.append((kind[len("tool-"):], _args(part.get("input"))))
        keys: list[str] = []
        edits = False
        for tool, args in calls:
            found = [v for k in MASTRA_PATH_KEYS if isinstance(v := args.get(k), str)]
            if found:
                edits = edits or any(w in tool.lower() for w in _EDIT_WORDS)
            keys.extend(k for v in found if (k := paths.key(v, number)) is not None)
        if keys:
            parsed.steps.append(ToolStep("edit" if edits else "read",
                                         tuple(dict.fromkeys(keys)), number))
    return parsed


def _invocations(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from _items(message.get("toolInvocations"))
    for part in _items(message.get("parts")):
        if part.get("type") == "tool-invocation" and isinstance(part.get("toolInvocation"),
                                                                dict):
            yield part["toolInvocation"]


def _args(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
