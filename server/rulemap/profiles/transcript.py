"""What a profile's transcript reader writes into: `Parsed` (a run's steps, the problems met,
the format), `TranscriptPaths` (a transcript's paths made workspace-relative) and the bounds of
one input, shared by the agent-neutral formats (`session/transcripts.py`) and each agent's own
log format (`TranscriptFormat`, which a profile declares: Claude Code's JSON lines, Mastra's
message list).

A message about a transcript names its line or entry and the kind of problem, never what the
line holds (docs/sessions.md); only the command line's words (`echo`) are quoted.

A reader of lines judges them as it goes (`Parsed.judge`, docs/sessions.md, "Junk: given up
early"): at every JUDGED_EVERY lines, when fewer than one in RECORDS_AT_LEAST of the lines so
far are records of its format, it stops — at the first verdict the input is not a transcript
at all (`NotATranscript`); later, what was read is replayed and a problem says where reading
stopped. So a file of junk costs the first thousand lines, whatever its size.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import Any, Literal

from rulemap.profiles.steps import Problem, ToolStep
from rulemap.readers.base import ReadError
from rulemap.records import record

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
_KNOWN_PATHS = 4096  # paths made keys remembered (then forgotten all at once) ...
_KNOWN_PATH_CHARS = 512  # ... if no longer than this: a few MB at most
MIB = f"{MAX_LINE_BYTES // (1024 * 1024)} MiB"
# The give-up rule (docs/sessions.md, "Junk: given up early"): a verdict every JUDGED_EVERY
# lines; fewer than one line in RECORDS_AT_LEAST a record of the format so far stops the read
JUDGED_EVERY = 1_000
RECORDS_AT_LEAST = 10
ONE_IN = "one in ten"  # RECORDS_AT_LEAST, in words
# (line number, line): None is a line the edge did not read, being over MAX_LINE_BYTES
Line = tuple[int, str | None]


class NotATranscript(ReadError):
    """The input is mostly not what its start looked like (the first verdict of
    `Parsed.judge`, or the first JUDGED_EVERY lines blank): nothing is replayed. A ReadError,
    so that the edges say it as they say why a file cannot be read (`--file F`: exit 2; the
    language server: InvalidParams); `what` and `why` let them word it as a sentence."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"it does not look like {what}: {why}")
        self.what = what
        self.why = why


@record
class Parsed:
    """The steps of one input, what was not understood, and the format found."""

    format: str  # "steps", "command-line", "empty", "unknown", or the name of the agent whose log
    steps: list[ToolStep] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    more_problems: int = 0  # past MAX_PROBLEMS: counted, not kept
    more_steps: int = 0  # past MAX_PATHS or MAX_PATH_CHARS: counted, not kept
    kept_paths: int = 0
    kept_chars: int = 0
    stopped: Problem | None = None  # where reading stopped (`judge`): listed past the cap too

    def report(self, line: int | None, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(line, message))
        else:
            self.more_problems += 1

    def judge(self, lines: int, records: int, what: str, are: str) -> bool:
        """A reader's verdict on the first `lines` lines, `records` of which were records of
        its format (`what`, such as "a Claude Code session log (JSON lines)"; `are` says what
        a record is: "are Claude Code log entries"): True to read on. Fewer than one in
        RECORDS_AT_LEAST is junk: at the first verdict NotATranscript (nothing is replayed);
        later False, with `stopped` saying so (what was read is replayed)."""
        if records * RECORDS_AT_LEAST >= lines:
            return True
        if lines <= JUDGED_EVERY:
            raise NotATranscript(what, f"{records:,} of its first {lines:,} lines {are} (fewer "
                                       f"than {ONE_IN}); nothing past "
                                       f"line {lines:,} was read")
        self.stopped = Problem(lines, f"reading stopped after this line: {records:,} of the "
                                      f"first {lines:,} lines {are} (fewer than {ONE_IN}); "
                                      "the rest of the file was not read")
        return False

    def add(self, step: ToolStep) -> None:
        paths = step.paths
        chars = len(paths[0]) if len(paths) == 1 else sum(map(len, paths))
        if self.more_steps or self.kept_paths + len(paths) > MAX_PATHS \
                or self.kept_chars + chars > MAX_PATH_CHARS:
            self.more_steps += 1  # a run replays in order: none after the first one dropped
            return
        self.steps.append(step)
        self.kept_paths += len(paths)
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
        if self.stopped is not None:
            self.problems.append(self.stopped)
            self.stopped = None
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
        # (raw, base) -> (key, problem): a long run touches the same files again and again
        self._known: dict[tuple[str, str | None], tuple[str | None, str | None]] = {}

    def key(self, raw: str, line: int | None, base: str | None = None) -> str | None:
        """`raw` as a workspace key (`./` for the root itself), or None (reported)."""
        known = self._known.get((raw, base))
        if known is None:
            known = self._key(raw, base)
            if len(raw) <= _KNOWN_PATH_CHARS:
                if len(self._known) >= _KNOWN_PATHS:
                    self._known.clear()
                self._known[(raw, base)] = known
        if known[1] is not None:
            self.parsed.report(line, known[1])
        return known[0]

    def _key(self, raw: str, base: str | None) -> tuple[str | None, str | None]:
        """`key`'s answer: the key, or None and the problem to report."""
        text = raw.strip().replace("\\", "/")
        if not text or "\0" in text:
            return None, (f"empty or invalid path {raw!r}: skipped" if self.echo
                          else "an empty or invalid path: skipped")
        if len(text) > MAX_PATH_LENGTH:
            return None, f"a path longer than {MAX_PATH_LENGTH} characters: skipped"
        directory = text.endswith("/")
        start = posixpath.normpath(base.replace("\\", "/")) if base else self.base
        absolute = posixpath.normpath(text if text.startswith("/") else
                                      posixpath.join(start, text))
        if absolute == self.root:
            return "./", None
        if not absolute.startswith(self.root.rstrip("/") + "/"):
            what = f"`{raw}` is" if self.echo else "a path"
            return None, (f"{what} outside the workspace root {self.root}: skipped "
                          "(pass --root to replay it against another root)")
        key = absolute[len(self.root.rstrip("/")) + 1:]
        return (key + "/" if directory else key), None

    def keys(self, raws: Iterable[str], line: int | None) -> tuple[str, ...]:
        keys: list[str] = []
        for raw in raws:
            key = self.key(raw, line)
            if key is not None:
                keys.append(key)
                if len(keys) > MAX_PATHS:
                    break  # more than a run keeps: the step is dropped (and counted) anyway
        return tuple(keys)


@record(frozen=True)
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


_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # json.loads's C scanner


def loads_line(line: str) -> Any:
    """A line of JSON lines (with its line ending) as json.loads reads it — the value, or
    ValueError or RecursionError as it raises them — at about half the cost for a short line:
    the C scanner called directly, json.loads only for what it does not settle (leading
    whitespace, text after the value, not JSON at all: the error and where)."""
    try:
        value, end = _scan(line, 0)
    except StopIteration:
        return json.loads(line)
    rest = len(line) - end  # after the value: the line ending, else whitespace or an error
    if (rest > 1 or (rest == 1 and line[end] != "\n")) and line[end:].strip(" \t\n\r"):
        return json.loads(line)  # raises: "Extra data"
    return value


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
