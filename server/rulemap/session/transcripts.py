"""A run's tool steps from text (pure: no disk): command-line tokens, a JSON list of steps, or
an agent's own session format (a log of JSON lines, a message list), told apart by shape.

An agent's format is its profile's (`Profile.transcript_format`: Claude Code's session log,
Mastra's message list); this module tells the shapes apart and hands the input to the profile
that declares that shape, with the bounds and path rules of `profiles/transcript.py`.

Paths come out workspace-relative (`/` separators; a directory a search ran over ends in `/`
once the engine knows it is one). An absolute path is made relative to the root; one outside
it is reported and skipped. A line or entry that is not understood is reported with its line
number (transcripts) or 1-based entry number (JSON lists) and skipped, never raised.

A transcript is read as a stream of lines (`parse_stream`; the edge opens the file through
`readers/host.py`), so what one input makes us hold is bounded whatever its size: one line at
a time (a JSON list document, read whole, up to MAX_DOCUMENT_CHARS), the first MAX_PROBLEMS
problems (the rest counted), and the steps up to MAX_PATHS paths (the rest counted); and
what it makes us read is bounded when it is mostly junk: the readers of lines stop where
fewer than one in ten are records of their format (`Parsed.judge`). A message about a
transcript names its line or entry and the kind of problem, never what the line holds: the
file may be anything a repository's symlink points at (docs/sessions.md).
Only steps typed on the command line (`parse_tokens`) are the user's own words, echoed.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, count, islice
from typing import Any, Literal

from rulemap.profiles import PROFILES
from rulemap.profiles.steps import STEP_KINDS, ToolStep
from rulemap.profiles.transcript import (
    JUDGED_EVERY,
    MAX_DOCUMENT_CHARS,
    MAX_LINE_BYTES,
    MAX_PATH_CHARS,
    MAX_PATH_LENGTH,
    MAX_PATHS,
    MAX_PROBLEMS,
    MIB,
    Line,
    NotATranscript,
    Parsed,
    TranscriptFormat,
    TranscriptPaths,
    short_reason,
)

__all__ = [
    "MAX_DOCUMENT_CHARS", "MAX_LINE_BYTES", "MAX_PATHS", "MAX_PATH_CHARS", "MAX_PATH_LENGTH",
    "MAX_PROBLEMS", "NotATranscript", "Parsed", "parse_steps", "parse_stream", "parse_text",
    "parse_tokens",
]

_TOKEN = re.compile(r"\S+")


def _format(shape: Literal["json-lines", "messages"]) -> tuple[str, TranscriptFormat] | None:
    """The first registered agent whose own session format has `shape`, with its name."""
    for profile in PROFILES.values():
        declared = profile.transcript_format
        if declared is not None and declared.shape == shape:
            return profile.name, declared
    return None


def _formats_said() -> str:
    """The agents' formats, for the message about an input that is none of them."""
    return ", ".join(p.transcript_format.what for p in PROFILES.values()
                     if p.transcript_format is not None)


def parse_tokens(tokens: Iterable[str], root: str, base: str | None = None) -> Parsed:
    """Command-line steps, one each: `read:src/a.ts`, `edit:packages/api/x.py` (several paths
    of one step: `read:a.ts,b.ts`). Relative paths are relative to `base` (default: root).
    The tokens are the user's own words: messages quote them."""
    parsed = Parsed("command-line")
    paths = TranscriptPaths(root, base, parsed, echo=True)
    for number, token in enumerate(tokens, 1):
        _step_token(paths, token, number)
    return parsed.done()


def _step_token(paths: TranscriptPaths, token: str, number: int) -> bool:
    """Whether `token` is a step KIND:PATH (added when its paths are in the workspace)."""
    kind, sep, rest = token.partition(":")
    if not sep or kind not in STEP_KINDS or not rest:
        paths.parsed.report(number, f"step {token!r} is not KIND:PATH (KIND read or edit), "
                                    "e.g. read:src/a.ts" if paths.echo else
                                    "not a step KIND:PATH (KIND read or edit, e.g. "
                                    "read:src/a.ts): skipped")
        return False
    keys = paths.keys(_split(rest, ","), number)
    if keys:
        paths.parsed.add(ToolStep(kind, keys, number))  # type: ignore[arg-type]
    return True


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
    """An input's (line number, line) pairs, with pairs put back to be read again. Iterating
    it iterates the pairs left (a C iterator: no Python call per line); a loop that breaks
    off leaves the rest for the next."""

    def __init__(self, lines: Iterable[str | None]) -> None:
        it = iter(lines)
        for first in it:  # the first line only, without a byte-order mark
            if first is not None:
                first = first.lstrip("\ufeff")
            self._pairs: Iterator[Line] = chain(((1, first),), zip(count(2), it))
            return
        self._pairs = iter(())

    def __iter__(self) -> Iterator[Line]:
        return self._pairs

    def put_back(self, read: Iterable[Line]) -> None:
        """`read` (pairs taken in this order) comes next, before anything put back earlier."""
        self._pairs = chain(read, self._pairs)


class _Held:
    """Lines read ahead (a would-be JSON document) held as text, not as a pair per line: four
    million short lines are 8 MiB of text, not half a gigabyte of pairs. `pairs()` gives them
    back as read."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.chunks: list[str] = []
        self.size = 0
        self.tail: Line | None = None  # a line over the line limit, which ended the read

    def extend(self, first: int, lines: Sequence[str], size: int) -> None:
        if self.first is None:
            self.first = first
        self.chunks.append("".join(lines))
        self.size += size

    def text(self) -> str:
        return "".join(self.chunks)

    def pairs(self) -> Iterator[Line]:
        number = self.first or 1
        for chunk in self.chunks:
            lines = chunk.split("\n")
            last = lines.pop()
            for line in lines:
                yield number, line + "\n"
                number += 1
            if last:  # the input's last line, without a line ending
                yield number, last
                number += 1
        if self.tail is not None:
            yield self.tail


_BATCH = 4096  # lines taken at a time by a read ahead (a loop in C over each batch)


def _parse(source: _Lines, root: str, base: str | None) -> Parsed:
    head: list[Line] = []
    for number, line in source:
        if number > JUDGED_EVERY:  # (the give-up rule: no record in the first lines)
            raise NotATranscript("a transcript", f"its first {JUDGED_EVERY:,} lines are "
                                                 f"blank; nothing past line {JUDGED_EVERY:,} "
                                                 "was read")
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


def _gather(source: _Lines) -> tuple[_Held, bool]:
    """The lines of a document read whole; False: it is over MAX_DOCUMENT_CHARS (the lines
    read so far are returned, the next one included). Read a batch at a time: a file of
    millions of one-character lines is gone through in a fraction of a second."""
    held = _Held()
    pairs = iter(source)
    while batch := list(islice(pairs, _BATCH)):
        lines = [line for _, line in batch]
        end = lines.index(None) if None in lines else len(lines)
        size = sum(map(len, lines[:end]))  # type: ignore[arg-type]
        over = held.size + size > MAX_DOCUMENT_CHARS
        if over:  # the line that crosses the limit is the last one read
            size, end = held.size, 0
            while size <= MAX_DOCUMENT_CHARS:
                size += len(lines[end])  # type: ignore[arg-type]
                end += 1
            size -= held.size
        held.extend(batch[0][0], lines[:end], size)  # type: ignore[arg-type]
        if end < len(batch):
            if not over:  # a line over the line limit ends the read
                held.tail = batch[end]
                end += 1
            source.put_back(batch[end:])
            return held, False
        if over:
            return held, False
    return held, True


def _json_list(source: _Lines, root: str, base: str | None) -> Parsed:
    read, whole = _gather(source)
    if not whole:
        parsed = Parsed("steps")
        lines = _format("json-lines")
        parsed.report(None, f"a JSON document over the {MIB} limit for one: not read"
                      + (f" ({lines[1].what} has no such limit)" if lines else ""))
        return parsed
    try:
        data = json.loads(read.text())
    except (ValueError, RecursionError) as exc:
        parsed = Parsed("steps")
        parsed.report(getattr(exc, "lineno", None), f"not valid JSON: {short_reason(exc)}")
        return parsed
    del read  # the text, once parsed
    return _parse_list(data, root, base)


def _object_or_lines(source: _Lines, root: str, base: str | None) -> Parsed:
    """A JSON object holding `steps` or `messages` (the whole input), else JSON lines."""
    read: list[Line] = []
    for number, line in source:
        read.append((number, line))
        if line is None or line.strip():
            break
    first = _loads(read[-1][1])
    if first is _INVALID:
        # a document over several lines, or a log whose first line is broken: the document
        # if the whole input (up to the limit) is one, else JSON lines from the start
        source.put_back(read)
        held, whole = _gather(source)
        if whole:
            document = _document(_loads(held.text()))
            if document is not None:
                return _parse_list(document, root, base)
        source.put_back(held.pairs())
        return _json_lines(source, root, base, whole)
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
    return _json_lines(source, root, base)


def _json_lines(source: _Lines, root: str, base: str | None, whole: bool = True) -> Parsed:
    """A log of JSON objects, one a line: the agent's whose session format it is."""
    found = _format("json-lines")
    if found is None:
        parsed = Parsed("unknown")
        parsed.report(None, "JSON lines, but no agent's session log is of that shape")
        return parsed
    name, declared = found
    parsed = Parsed(name)
    if not whole:
        parsed.report(None, f"the input starts like a JSON document but is over the {MIB}"
                            " limit for one: read as JSON lines")
    declared.read(source, parsed, TranscriptPaths(root, base, parsed))
    return parsed


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
    read: list[Line] = []
    first: list[str] = []
    where: int | None = None
    for number, line in source:
        read.append((number, line))
        if line is None or number >= JUDGED_EVERY:  # (held: a bounded number of lines)
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
        parsed.report(where, f"not a supported input: expected a JSON list of steps, "
                             f"{_formats_said()}, or steps such as read:src/a.ts")
        return parsed
    source.put_back(read)
    parsed = Parsed("command-line")
    paths = TranscriptPaths(root, base, parsed)
    records = 0  # lines holding a step (the give-up rule)
    judge_at = JUDGED_EVERY
    for number, line in source:
        if number > judge_at:
            if not parsed.judge(number - 1, records, _STEPS, _STEP_LINES):
                break
            judge_at += JUDGED_EVERY
        if line is None:
            parsed.report(number, f"a line longer than {MIB}: skipped")
            continue
        steps = False
        for match in _TOKEN.finditer(line):
            steps = _step_token(paths, match.group(), number) or steps
        records += steps
    return parsed


_STEPS = "steps such as read:src/a.ts, one or more a line"
_STEP_LINES = "hold a step KIND:PATH"


def parse_steps(data: object, root: str, base: str | None = None) -> Parsed:
    """Steps given as data (`[{"kind": "read", "paths": [...]}, ...]`, as the language
    server's `rulemap/session` takes them)."""
    if isinstance(data, list) and any(isinstance(e, dict) and ("role" in e or "parts" in e)
                                      for e in data):
        parsed = Parsed("steps")
        parsed.report(None, "`steps` holds messages: pass a transcript file")
        return parsed.done()
    return _parse_list(data, root, base).done()


def _parse_list(data: object, root: str, base: str | None) -> Parsed:
    if not isinstance(data, list):
        parsed = Parsed("steps")
        parsed.report(None, "expected a JSON list")
        return parsed
    messages = any(isinstance(e, dict) and ("role" in e or "parts" in e) for e in data)
    found = _format("messages") if messages else None
    if found is not None:
        parsed = Parsed(found[0])
        found[1].read(data, parsed, TranscriptPaths(root, base, parsed))
        return parsed
    parsed = Parsed("steps")
    paths = TranscriptPaths(root, base, parsed)
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
        tool = entry.get("tool")
        if tool is not None and not isinstance(tool, str):
            parsed.report(number, f"{where}: `tool` must be a string (the agent's tool "
                                  "name): ignored")
            tool = None
        keys = paths.keys(raw, number)
        if keys:
            parsed.add(ToolStep(kind, keys, number, tool))
    return parsed


