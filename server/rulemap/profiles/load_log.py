"""What an agent really loaded, as its own log says (`rulemap verify LOG`): the agent-neutral
shape each profile's load-log reader fills, and the format a profile declares
(`Profile.load_log_format`).

A log is an ordered list of observed loads. Each names the file (absolute, as the agent wrote
it) or, when the agent logs only the text it put in the prompt, carries that text instead;
each has a step — 0 for the start-up load, n for the load the n-th touched file triggered
(`LoadLog.triggers[n - 1]`), None when the log does not say — and the agent's own word for
why (`session_start`, `nested_traversal`, …). A message about a log names its line and the
kind of problem, never what the line holds (docs/sessions.md: logs are read, never echoed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import Any

from rulemap.profiles.transcript import loads_line
from rulemap.records import record

# (1-based line number, the line with its ending)
LogLine = tuple[int, str]
_PIECE = 1 << 20  # characters of a log split into lines at a time


class LogLines:
    """A log's text, iterated (as often as asked) as numbered lines with their endings, each
    line made when it is reached: a list of the pairs of 30 million one-character lines — a
    64 MiB file of junk — would take gigabytes, the text takes its size. `text`: all of it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __iter__(self) -> Iterator[LogLine]:
        text, start, number = self.text, 0, 1
        while start < len(text):
            end = text.find("\n", start + _PIECE)  # a piece ends at a line ending
            end = len(text) if end < 0 else end + 1
            lines = text[start:end].split("\n")
            last = lines.pop()
            for line in lines:
                yield number, line + "\n"
                number += 1
            if last:  # the log's last line, without a line ending
                yield number, last
            start = end


def log_text(lines: Iterable[LogLine]) -> str:
    """The text of a log's lines (`LogLines` has it already)."""
    return lines.text if isinstance(lines, LogLines) else "".join(line for _, line in lines)


class LoadLogError(ValueError):
    """A log that cannot be read as its format: the line (None: the whole input) and why,
    worded without quoting it."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@record(frozen=True)
class ObservedLoad:
    """One load the agent logged."""

    path: str | None  # absolute (or as logged); None: the log gives the text, not a name
    step: int | None  # 0: start-up; n: triggered by `LoadLog.triggers[n - 1]`; None: unknown
    reason: str  # the agent's own word for why it loaded it
    line: int | None = None  # where the log says so (1-based)
    text: str | None = None  # the text the agent put in its prompt (when it names no file)
    user: bool = False  # the log says it is a user-level (global) file, not the project's
    compared: bool = True  # False: a re-load the model does not predict (after compaction)
    parent: str | None = None  # the file whose import brought it, as logged


@record
class LoadLog:
    """A parsed log: the agent's loads in order, and what the log says of the run."""

    agent: str  # the profile whose format it is
    loads: list[ObservedLoad] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)  # step n's touched path, as logged
    cwd: str | None = None  # the agent's working directory, when the log says (absolute)
    start_up: bool = True  # whether the log shows the start-up load at all
    skipped_lines: int = 0  # lines of other events, not loads (not problems)
    # every trigger is a file (an agent whose loads follow only a file read): no need to ask
    # the disk which of 50,000 touched paths are directories
    triggers_are_files: bool = False
    # trigger -> its step: a log of 50,000 touched files searched `triggers` 50,000 times
    _steps: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def step_of(self, trigger: str) -> int:
        """The step `trigger` (as logged) starts: a new one the first time it is seen."""
        if len(self._steps) != len(self.triggers):  # `triggers` set another way (`replace`)
            self._steps = {}
            for number, known in enumerate(self.triggers, 1):
                self._steps.setdefault(known, number)
        step = self._steps.get(trigger)
        if step is None:
            self.triggers.append(trigger)
            step = self._steps[trigger] = len(self.triggers)
        return step


@record(frozen=True)
class LoadLogFormat:
    """The log a profile's agent writes of what it loads. `detect(text)`: whether the text is
    in this format (told apart by content); `read(lines)`: the lines (numbered, with endings;
    they may be iterated more than once) parsed, LoadLogError naming the line it cannot
    read; `what`: the format for people; `example`: a file name such a log has, `how`: how
    one gets it (both for help); `source`: where the format is documented."""

    what: str
    detect: Callable[[str], bool]
    read: Callable[[Iterable[LogLine]], LoadLog]
    example: str
    how: str = ""
    source: str = ""


def json_objects(lines: Iterable[LogLine]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line of a JSON-lines log as an object; LoadLogError naming the first
    line that is not one (the decoder's reason, never the line)."""
    for number, line in lines:
        try:
            value = loads_line(line)
        except (ValueError, RecursionError) as exc:
            if not line or line.isspace():
                continue
            why = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) \
                else type(exc).__name__
            raise LoadLogError(number, f"not valid JSON ({why})") from None
        if not isinstance(value, dict):
            raise LoadLogError(number, "not a JSON object")
        yield number, value


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first non-blank line of `text` as a JSON object, or None."""
    for line in text.splitlines():
        if line.strip():
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                return None
            return value if isinstance(value, dict) else None
    return None


def text_of(value: object) -> str:
    """String `value`, else the `str` of a JSON value's strings joined (parts, outputs)."""
    if isinstance(value, str):
        return value
    return "\n".join(strings_in(value))


def strings_in(value: object, depth: int = 0) -> Iterator[str]:
    """Every string of a JSON value, depth-first, in order (bounded depth)."""
    if depth > 64:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item, depth + 1)
