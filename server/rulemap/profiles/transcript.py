"""What a profile's transcript reader writes into: `Parsed` (a run's steps, the problems met,
the format), `TranscriptPaths` (a transcript's paths made workspace-relative) and the bounds of
one input, shared by the agent-neutral formats (`session/transcripts.py`) and each agent's own
log format (`TranscriptFormat`, which a profile declares: Claude Code's JSON lines, Mastra's
message list).

A message about a transcript names its line or entry and the kind of problem, never what the
line holds (docs/sessions.md); only the command line's words (`echo`) are quoted.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from rulemap.profiles.steps import Problem, ToolStep

# The bounds of one input (docs/sessions.md, "Limits"). A line (the edge reads no more of one:
# it hands over None instead) and a JSON document read whole are held at most this long: a
# log line holds one message (a written file's whole content at most), a message list a whole
# conversation; parsed, JSON takes up to ~25 times its text, so this bounds the peak.
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_DOCUMENT_CHARS = MAX_LINE_BYTES
MAX_PROBLEMS = 100  # kept with their lines; past it they are only counted
MAX_PATHS = 50_000  # the paths of all kept steps (a long session has thousands)
MAX_PATH_CHARS = 4 * 1024 * 1024  # ... and their characters, all together
MAX_PATH_LENGTH = 4096  # PATH_MAX: no longer path names a file
MIB = f"{MAX_LINE_BYTES // (1024 * 1024)} MiB"
# (line number, line): None is a line the edge did not read, being over MAX_LINE_BYTES
Line = tuple[int, str | None]


@dataclass
class Parsed:
    """The steps of one input, what was not understood, and the format found."""

    format: str  # "steps", "command-line", "empty", "unknown", or the name of the agent whose log
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


class TranscriptPaths:
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


@dataclass(frozen=True)
class TranscriptFormat:
    """An agent's own session format, as its profile declares it. `shape`: how the input is
    told apart (`json-lines`: a log of JSON objects, one a line; `messages`: a JSON list of
    chat messages); `read` fills the `Parsed` (named after the profile) from the lines or the
    list; `log_dirs`: where under the home directory the agent writes its logs (the server
    may read a transcript there); `what`: the format for people, in messages."""

    shape: Literal["json-lines", "messages"]
    read: Callable[[Any, Parsed, TranscriptPaths], None]
    what: str
    log_dirs: tuple[str, ...] = ()


def items(content: object) -> Iterator[dict[str, Any]]:
    if isinstance(content, list):
        yield from (item for item in content if isinstance(item, dict))


def short_reason(exc: BaseException) -> str:
    """Why a text is not JSON, never quoting it: the decoder's own message and where."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"[:200]
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return type(exc).__name__
