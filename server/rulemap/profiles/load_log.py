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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# (1-based line number, the line with its ending)
LogLine = tuple[int, str]


class LoadLogError(ValueError):
    """A log that cannot be read as its format: the line (None: the whole input) and why,
    worded without quoting it."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
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


@dataclass
class LoadLog:
    """A parsed log: the agent's loads in order, and what the log says of the run."""

    agent: str  # the profile whose format it is
    loads: list[ObservedLoad] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)  # step n's touched path, as logged
    cwd: str | None = None  # the agent's working directory, when the log says (absolute)
    start_up: bool = True  # whether the log shows the start-up load at all
    skipped_lines: int = 0  # lines of other events, not loads (not problems)

    def step_of(self, trigger: str) -> int:
        """The step `trigger` (as logged) starts: a new one the first time it is seen."""
        if trigger in self.triggers:
            return self.triggers.index(trigger) + 1
        self.triggers.append(trigger)
        return len(self.triggers)


@dataclass(frozen=True)
class LoadLogFormat:
    """The log a profile's agent writes of what it loads. `detect(text)`: whether the text is
    in this format (told apart by content); `read(lines)`: the lines (numbered, with endings)
    parsed, LoadLogError naming the line it cannot read; `what`: the format for people;
    `example`: a file name such a log has, `how`: how one gets it (both for help);
    `source`: where the format is documented."""

    what: str
    detect: Callable[[str], bool]
    read: Callable[[Sequence[LogLine]], LoadLog]
    example: str
    how: str = ""
    source: str = ""


def json_objects(lines: Sequence[LogLine]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line of a JSON-lines log as an object; LoadLogError naming the first
    line that is not one (the decoder's reason, never the line)."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:
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
