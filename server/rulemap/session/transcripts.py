"""A run's tool steps from text (pure: no disk): command-line tokens, a JSON list of steps, a
Claude Code session log (JSON lines) or a Mastra-style message list, told apart by shape.

Why this module is long: the four formats are told apart by the first lines of one stream
and share the path rules and the bounds below; split, each part would reach into the others.

Paths come out workspace-relative (`/` separators; a directory a search ran over ends in `/`
once the engine knows it is one). An absolute path is made relative to the root; one outside
it is reported and skipped. A line or entry that is not understood is reported with its line
number (transcripts) or 1-based entry number (JSON lists) and skipped, never raised.

A transcript is read as a stream of lines (`parse_stream`; the edge opens the file through
`readers/host.py`), so what one input makes us hold is bounded whatever its size: one line at
a time (a JSON list document, read whole, up to MAX_DOCUMENT_CHARS), the first MAX_PROBLEMS
problems (the rest counted), and the steps up to MAX_PATHS paths (the rest counted). A
message about a transcript names its line or entry and the kind of problem, never what the
line holds: the file may be anything a repository's symlink points at (docs/sessions.md).
Only steps typed on the command line (`parse_tokens`) are the user's own words, echoed.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
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

# The bounds of one input (docs/sessions.md, "Limits"). A line (the edge reads no more of one:
# it hands over None instead) and a JSON document read whole are held at most this long: a
# Claude Code line holds one message (a Write's whole content at most), a Mastra list a whole
# conversation; parsed, JSON takes up to ~25 times its text, so this bounds the peak.
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_DOCUMENT_CHARS = MAX_LINE_BYTES
MAX_PROBLEMS = 100  # kept with their lines; past it they are only counted
MAX_PATHS = 50_000  # the paths of all kept steps (a long Claude Code session has thousands)
MAX_PATH_CHARS = 4 * 1024 * 1024  # ... and their characters, all together
MAX_PATH_LENGTH = 4096  # PATH_MAX: no longer path names a file
_MIB = f"{MAX_LINE_BYTES // (1024 * 1024)} MiB"
_TOKEN = re.compile(r"\S+")
# (line number, line): None is a line the edge did not read, being over MAX_LINE_BYTES
_Line = tuple[int, str | None]


@dataclass
class Parsed:
    """The steps of one input, what was not understood, and the format found."""

    format: str  # "steps", "claude-code", "mastra", "command-line", "empty", "unknown"
    steps: list[ToolStep] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    more_problems: int = 0  # past MAX_PROBLEMS: counted, not kept
    more_steps: int = 0  # past MAX_PATHS or MAX_PATH_CHARS: counted, not kept
    kept_paths: int = 0
    kept_chars: int = 0

    def report(self, line: int | None, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(line, message))
        else:
            self.more_problems += 1

    def add(self, step: ToolStep) -> None:
        chars = sum(len(p) for p in step.paths)
        if self.more_steps or self.kept_paths + len(step.paths) > MAX_PATHS \
                or self.kept_chars + chars > MAX_PATH_CHARS:
            self.more_steps += 1  # a run replays in order: none after the first one dropped
            return
        self.steps.append(step)
        self.kept_paths += len(step.paths)
        self.kept_chars += chars

    def done(self) -> Parsed:
        """Close the problem list: one line for the problems past the cap (how many), one for
        the steps past theirs. Called once, by each public entry point."""
        if self.more_problems:
            self.problems.append(Problem(None, f"and {self.more_problems} more problems like "
                                               f"these, not listed (only the first "
                                               f"{MAX_PROBLEMS} are)"))
            self.more_problems = 0
        if self.more_steps:
            self.problems.append(Problem(None, f"and {self.more_steps} more steps, not "
                                               f"replayed: a run keeps at most {MAX_PATHS} "
                                               f"paths ({MAX_PATH_CHARS // (1024 * 1024)} MiB "
                                               f"of them)"))
            self.more_steps = 0
        return self


class _Paths:
    """Makes a transcript's paths workspace-relative, reporting those outside the root.
    `echo`: the input is the user's own words (the command line), so a message may quote it;
    otherwise it names only the kind of problem."""

    def __init__(self, root: str, base: str | None, parsed: Parsed, echo: bool = False):
        self.root = posixpath.normpath(root.replace("\\", "/"))
        self.base = posixpath.normpath(base.replace("\\", "/")) if base else self.root
        self.parsed = parsed
        self.echo = echo

    def key(self, raw: str, line: int | None, base: str | None = None) -> str | None:
        """`raw` as a workspace key (`./` for the root itself), or None (reported)."""
        text = raw.strip().replace("\\", "/")
        if not text or "\0" in text:
            self.parsed.report(line, f"empty or invalid path {raw!r}: skipped" if self.echo
                               else "an empty or invalid path: skipped")
            return None
        if len(text) > MAX_PATH_LENGTH:
            self.parsed.report(line, f"a path longer than {MAX_PATH_LENGTH} characters: "
                                     "skipped")
            return None
        directory = text.endswith("/")
        start = posixpath.normpath(base.replace("\\", "/")) if base else self.base
        absolute = posixpath.normpath(text if text.startswith("/") else
                                      posixpath.join(start, text))
        if absolute == self.root:
            return "./"
        if not absolute.startswith(self.root.rstrip("/") + "/"):
            what = f"`{raw}` is" if self.echo else "a path"
            self.parsed.report(line, f"{what} outside the workspace root {self.root}: skipped "
                                     "(pass --root to replay it against another root)")
            return None
        key = absolute[len(self.root.rstrip("/")) + 1:]
        return key + "/" if directory else key

    def keys(self, raws: Iterable[str], line: int | None) -> tuple[str, ...]:
        keys: list[str] = []
        for raw in raws:
            key = self.key(raw, line)
            if key is not None:
                keys.append(key)
                if len(keys) > MAX_PATHS:
                    break  # more than a run keeps: the step is dropped (and counted) anyway
        return tuple(keys)


def parse_tokens(tokens: Iterable[str], root: str, base: str | None = None) -> Parsed:
    """Command-line steps, one each: `read:src/a.ts`, `edit:packages/api/x.py` (several paths
    of one step: `read:a.ts,b.ts`). Relative paths are relative to `base` (default: root).
    The tokens are the user's own words: messages quote them."""
    parsed = Parsed("command-line")
    paths = _Paths(root, base, parsed, echo=True)
    for number, token in enumerate(tokens, 1):
        _step_token(paths, token, number)
    return parsed.done()


def _step_token(paths: _Paths, token: str, number: int) -> None:
    kind, sep, rest = token.partition(":")
    if not sep or kind not in STEP_KINDS or not rest:
        paths.parsed.report(number, f"step {token!r} is not KIND:PATH (KIND read or edit), "
                                    "e.g. read:src/a.ts" if paths.echo else
                                    "not a step KIND:PATH (KIND read or edit, e.g. "
                                    "read:src/a.ts): skipped")
        return
    keys = paths.keys(_split(rest, ","), number)
    if keys:
        paths.parsed.add(ToolStep(kind, keys, number))  # type: ignore[arg-type]


def _split(text: str, sep: str) -> Iterator[str]:
    """`text.split(sep)` one piece at a time (a line of 8 MiB of commas is no 4M-item list)."""
    start = 0
    while (end := text.find(sep, start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def parse_text(text: str, root: str, base: str | None = None) -> Parsed:
    """Any supported input, told apart by its shape. `base`: what relative paths are
    relative to when the input does not say (default: the root)."""
    return parse_stream(io.StringIO(text), root, base)


def parse_stream(lines: Iterable[str | None], root: str, base: str | None = None) -> Parsed:
    """`parse_text` over an input given a line at a time, each with its line ending (the
    last may lack one), None for a line the reader skipped as longer than MAX_LINE_BYTES.
    JSON lines and command-line steps are parsed a line at a time; a JSON document (a list,
    or an object holding `steps` or `messages`) is read whole, up to MAX_DOCUMENT_CHARS."""
    return _parse(_Lines(lines), root, base).done()


class _Lines:
    """An input's (line number, line) pairs, with pairs put back to be read again."""

    def __init__(self, lines: Iterable[str | None]) -> None:
        self._lines = iter(lines)
        self._count = 0
        self._back: list[_Line] = []

    def __iter__(self) -> Iterator[_Line]:
        return self

    def __next__(self) -> _Line:
        if self._back:
            return self._back.pop()
        line = next(self._lines)
        self._count += 1
        if self._count == 1 and line is not None:
            line = line.lstrip("\ufeff")
        return self._count, line

    def put_back(self, read: list[_Line]) -> None:
        """`read` (pairs taken in this order) comes next, before anything put back earlier."""
        self._back.extend(reversed(read))


def _parse(source: _Lines, root: str, base: str | None) -> Parsed:
    head: list[_Line] = []
    for number, line in source:
        head.append((number, line))
        if line is None or line.strip():
            break
    else:
        parsed = Parsed("empty")
        parsed.report(None, "the input is empty: no steps")
        return parsed
    source.put_back(head)
    first = head[-1][1]
    start = first.lstrip()[:1] if first is not None else "{"
    if start == "[":
        return _json_list(source, root, base)
    if start == "{":
        return _object_or_lines(source, root, base)
    return _token_lines(source, root, base)


def _gather(source: _Lines) -> tuple[list[_Line], bool]:
    """The lines of a document read whole; False: it is over MAX_DOCUMENT_CHARS (the lines
    read so far are returned, the next one included)."""
    read: list[_Line] = []
    size = 0
    for number, line in source:
        read.append((number, line))
        if line is None:
            return read, False
        size += len(line)
        if size > MAX_DOCUMENT_CHARS:
            return read, False
    return read, True


def _joined(read: list[_Line]) -> str:
    return "".join(line or "" for _, line in read)


def _json_list(source: _Lines, root: str, base: str | None) -> Parsed:
    read, whole = _gather(source)
    if not whole:
        parsed = Parsed("steps")
        parsed.report(None, f"a JSON document over the {_MIB} limit for one: not read (a "
                            "Claude Code session log, JSON lines, has no such limit)")
        return parsed
    try:
        data = json.loads(_joined(read))
    except (ValueError, RecursionError) as exc:
        parsed = Parsed("steps")
        parsed.report(getattr(exc, "lineno", None), f"not valid JSON: {_short(exc)}")
        return parsed
    del read  # the text, once parsed
    return _parse_list(data, root, base)


def _object_or_lines(source: _Lines, root: str, base: str | None) -> Parsed:
    """A JSON object holding `steps` or `messages` (the whole input), else JSON lines."""
    read: list[_Line] = []
    for number, line in source:
        read.append((number, line))
        if line is None or line.strip():
            break
    first = _loads(read[-1][1])
    if first is _INVALID:
        # a document over several lines, or a log whose first line is broken: the document
        # if the whole input (up to the limit) is one, else JSON lines from the start
        source.put_back(read)
        read, whole = _gather(source)
        if whole:
            document = _document(_loads(_joined(read)))
            if document is not None:
                return _parse_list(document, root, base)
        source.put_back(read)
        parsed = Parsed("claude-code")
        if not whole:
            parsed.report(None, f"the input starts like a JSON document but is over the {_MIB}"
                                " limit for one: read as JSON lines")
        return _json_lines(source, parsed, root, base)
    document = _document(first)
    if document is not None:
        for number, line in source:  # one object holding steps: a document if nothing follows
            read.append((number, line))
            if line is None or line.strip():
                break
        else:
            return _parse_list(document, root, base)
    del first, document
    source.put_back(read)
    return _json_lines(source, Parsed("claude-code"), root, base)


_INVALID = object()


def _loads(line: str | None) -> object:
    if line is None:
        return _INVALID
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return _INVALID


def _document(value: object) -> list[Any] | None:
    if isinstance(value, dict):
        for name in ("steps", "messages"):
            if isinstance(value.get(name), list):
                return value[name]  # type: ignore[no-any-return]
    return None


def _token_lines(source: _Lines, root: str, base: str | None) -> Parsed:
    """Steps such as `read:src/a.ts`, any number a line; the first three say it is so."""
    read: list[_Line] = []
    first: list[str] = []
    where: int | None = None
    for number, line in source:
        read.append((number, line))
        if line is None:
            break
        for match in _TOKEN.finditer(line):
            where = where or number
            first.append(match.group())
            if len(first) == 3:
                break
        if len(first) == 3:
            break
    if not first or not all(":" in t for t in first):
        parsed = Parsed("unknown")
        parsed.report(where, "not a supported input: expected a JSON list of steps or "
                             "messages, a Claude Code session log (JSON lines), or steps such "
                             "as read:src/a.ts")
        return parsed
    source.put_back(read)
    parsed = Parsed("command-line")
    paths = _Paths(root, base, parsed)
    for number, line in source:
        if line is None:
            parsed.report(number, f"a line longer than {_MIB}: skipped")
            continue
        for match in _TOKEN.finditer(line):
            _step_token(paths, match.group(), number)
    return parsed


def parse_steps(data: object, root: str, base: str | None = None) -> Parsed:
    """Steps given as data (`[{"kind": "read", "paths": [...]}, ...]`, as the language
    server's `rulemap/session` takes them)."""
    if isinstance(data, list) and any(isinstance(e, dict) and ("role" in e or "parts" in e)
                                      for e in data):
        parsed = Parsed("steps")
        parsed.report(None, "`steps` holds messages: pass a transcript file")
        return parsed.done()
    return _parse_list(data, root, base).done()


def _short(exc: BaseException) -> str:
    """Why a text is not JSON, never quoting it: the decoder's own message and where."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"[:200]
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return type(exc).__name__


def _parse_list(data: object, root: str, base: str | None) -> Parsed:
    if not isinstance(data, list):
        parsed = Parsed("steps")
        parsed.report(None, "expected a JSON list")
        return parsed
    messages = any(isinstance(e, dict) and ("role" in e or "parts" in e) for e in data)
    if messages:
        return _parse_mastra(data, root, base)
    parsed = Parsed("steps")
    paths = _Paths(root, base, parsed)
    for number, entry in enumerate(data, 1):
        where = f"entry {number}"
        if not isinstance(entry, dict):
            parsed.report(number, f"{where}: not an object: skipped")
            continue
        kind = entry.get("kind")
        raw = entry.get("paths")
        if kind not in STEP_KINDS:
            parsed.report(number, f"{where}: `kind` must be \"read\" or \"edit\": skipped")
            continue
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
            parsed.report(number, f"{where}: `paths` must be a list of strings: skipped")
            continue
        keys = paths.keys(raw, number)
        if keys:
            parsed.add(ToolStep(kind, keys, number))
    return parsed


# ----------------------------------------------------------------------------- Claude Code


def _json_lines(source: _Lines, parsed: Parsed, root: str, base: str | None) -> Parsed:
    """A Claude Code session log, a line at a time (a line is forgotten once parsed)."""
    paths = _Paths(root, base, parsed)
    for number, line in source:
        if line is None:
            parsed.report(number, f"a line longer than {_MIB}: skipped")
            continue
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError) as exc:
            parsed.report(number, f"not valid JSON: {_short(exc)}: skipped")
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
        for item in _items(message.get("content")):
            if item.get("type") != "tool_use":
                continue
            step = _claude_tool(item, number, paths, cwd)
            if step is not None:
                parsed.add(step)
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
        paths.parsed.report(line, f"{name}: `input` is not an object: skipped")
        return None
    raw = next((tool_input[k] for k in CLAUDE_PATH_KEYS if k in tool_input), None)
    if raw is None:
        if name in ("Glob", "Grep", "LS"):
            return None  # a search of the session's directory: no path of its own
        paths.parsed.report(line, f"{name}: no file_path: skipped")
        return None
    if not isinstance(raw, str):
        paths.parsed.report(line, f"{name}: the path is not a string: skipped")
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
            parsed.report(number, f"entry {number}: not a message object: skipped")
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
            keys.extend(paths.keys(found, number))
        if keys:
            parsed.add(ToolStep("edit" if edits else "read", tuple(dict.fromkeys(keys)), number))
    return parsed


def _invocations(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from _items(message.get("toolInvocations"))
    for part in _items(message.get("parts")):
        if part.get("type") == "tool-invocation" and isinstance(part.get("toolInvocation"),
                                                                dict):
            yield part["toolInvocation"]


def _args(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
